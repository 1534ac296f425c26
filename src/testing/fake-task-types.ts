import type { SeededRandom } from './random.ts';
import type { FakeTaskVariant, WireTask } from './wire-types.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The `type` of a generated task of `variant`: realistic fields, drawn from `r`. */
export function fakeTaskType(
  r: SeededRandom,
  variant: FakeTaskVariant,
  appId: string,
  userId: string,
  n: number,
  createdAt: number,
): NonNullable<WireTask['type']> {
  const entitlement = `ent-${appId.slice(4)}-${r.int(20)}`;
  const common = {
    appId,
    appEntitlementId: entitlement,
    appUserId: `au-${userId}`,
    identityUserId: userId,
  };
  switch (variant) {
    case 'grant':
      return {
        grant: {
          ...common,
          grantDuration: `${3600 * (1 + r.int(72))}s`,
          outcome: 'GRANT_OUTCOME_UNSPECIFIED',
          outcomeTime: null,
          source: {
            requestId: `req-${n}`,
            conversationId: '',
            externalUrl: '',
            integrationId: '',
            isExtension: r.next() < 0.2,
          },
        },
      };
    case 'revoke':
      return {
        revoke: {
          ...common,
          outcome: r.pick(['REVOKE_OUTCOME_UNSPECIFIED', 'REVOKE_OUTCOME_REVOKED']),
          outcomeTime: null,
          resource: { appId, appResourceTypeId: 'repository', id: `res-${r.int(50)}` },
          source:
            r.next() < 0.5
              ? { review: { accessReviewId: `ar-${r.int(5)}`, certTicketId: `t-${r.int(900)}` } }
              : {
                  nonUsage: { expiresAt: new Date(createdAt + 30 * DAY_MS).toISOString(), lastLogin: null },
                },
        },
      };
    case 'certify':
      return {
        certify: {
          ...common,
          accessReviewId: `ar-${r.int(5)}`,
          accessReviewSelection: `sel-${r.int(100)}`,
          outcome: 'CERTIFY_OUTCOME_UNSPECIFIED',
          outcomeTime: null,
          resource: null,
        },
      };
    case 'offboarding':
      return {
        offboarding: {
          subjectUserId: userId,
          outcome: 'OFFBOARDING_OUTCOME_IN_PROGRESS',
          outcomeTime: null,
        },
      };
    case 'finding':
      return {
        finding: {
          findingId: `fnd-${n}`,
          findingType: 'FINDING_TYPE_UNUSED_SECRET',
          outcome: 'FINDING_TASK_OUTCOME_UNSPECIFIED',
        },
      };
    case 'action':
      return {
        action: {
          actionId: `act-${r.int(10)}`,
          displayName: 'Create repository',
          type: 'TYPE_RESOURCE_ACTION',
          outcome: 'ACTION_OUTCOME_UNSPECIFIED',
          outcomeTime: null,
          formValues: { name: `repo-${n}`, visibility: 'private' },
          createdAppEntitlementIds: [],
          actionInstance: {
            displayName: 'Create repository',
            connectorResourceActionRef: {
              appId,
              connectorId: `conn-${appId}`,
              resourceTypeId: 'repository',
              connectorActionName: 'create',
              connectorActionDisplayName: 'Create',
            },
          },
          scopeRole: {
            appId,
            roleResourceId: 'role-admin',
            roleResourceTypeId: 'role',
            scopeResourceId: `res-${r.int(50)}`,
            scopeResourceTypeId: 'repository',
            grantDuration: null,
          },
        },
      };
  }
}
