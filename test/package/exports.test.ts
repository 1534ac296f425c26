import { describe, expect, it } from 'vitest';
import * as schemas from '../../schemas/index.ts';
import * as root from '../../src/index.ts';
import * as testing from '../../src/testing/index.ts';
import * as webhooks from '../../src/webhooks/index.ts';

// The root's runtime names, pinned: a name added or removed here is a decision about the public
// surface (and a line in CHANGELOG.md), not a side effect of an `export *`.
const ROOT_NAMES = [
  'APIError',
  'AbortError',
  'AccountStatus',
  'ActionOutcome',
  'ActionType',
  'AppUserType',
  'AuthenticationError',
  'BadRequestError',
  'CertifyOutcome',
  'ConfigurationError',
  'ConflictError',
  'ConnectionError',
  'ConnectorActionOperation',
  'EmergencyStatus',
  'ExpandedType',
  'ExternalRefSource',
  'FindingSeverity',
  'FindingTaskOutcome',
  'FindingType',
  'GrantOutcome',
  'IdGovClient',
  'IdGovError',
  'InsightRecommendation',
  'InternalServerError',
  'NotFoundError',
  'OffboardingOutcome',
  'PaginationError',
  'PendingActionFilter',
  'PermissionDeniedError',
  'PolicyStepState',
  'PolicyType',
  'RateLimitError',
  'RedirectError',
  'RequestValidationError',
  'ResponseTooLargeError',
  'ResponseValidationError',
  'RevokeOutcome',
  'StepApprovalType',
  'StoreError',
  'TaskActionType',
  'TaskExpandPath',
  'TaskOrigin',
  'TaskProcessingType',
  'TaskSearchCurrentStep',
  'TaskSearchSortBy',
  'TaskState',
  'TimeoutError',
  'TokenProviderError',
  'UnprocessableEntityError',
  'VERSION',
  'expandedTypeName',
  'isExpandedType',
  'isKnownEnumValue',
  'previewFindingRules',
  'resolveExpanded',
  'unlisted',
  'unlistedTaskType',
];

const entries = {
  '@idgov/sdk': root,
  '@idgov/sdk/schemas': schemas,
  '@idgov/sdk/webhooks': webhooks,
  '@idgov/sdk/testing': testing,
};

describe('public entry points', () => {
  it('the root exports exactly the pinned runtime names', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_NAMES);
  });

  it('every runtime name has one way in', () => {
    const seen = new Map<string, string>();
    for (const [entry, module] of Object.entries(entries)) {
      for (const name of Object.keys(module)) {
        expect(seen.get(name), `${name} is exported by ${seen.get(name)} and ${entry}`).toBeUndefined();
        seen.set(name, entry);
      }
    }
  });

  it('builders and internal helpers stay internal', () => {
    const internal = [
      'defineEnum',
      'openEnum',
      'dateTimeInput',
      'durationInput',
      'TokenResponseSchema',
      'TokenErrorResponseSchema',
      'bodyHash',
    ];
    for (const [entry, module] of Object.entries(entries)) {
      for (const name of internal)
        expect(Object.keys(module), `${entry} exports ${name}`).not.toContain(name);
    }
  });

  it('the schemas entry holds Zod schemas only, each parsing on its own', () => {
    for (const [name, value] of Object.entries(schemas)) {
      expect(name).toMatch(/Schema$/);
      expect(typeof (value as { safeParse?: unknown }).safeParse, name).toBe('function');
    }
  });
});
