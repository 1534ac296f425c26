import * as z from 'zod/mini';
import {
  list,
  loose,
  map,
  nullishBoolean,
  nullishNumber,
  nullishString,
  nullishStrings,
  opt,
} from './wire.ts';

// The objects a task search inlines in `expanded`, with the fields the service publishes for them.
// Like the task model: every field may be missing or null, unknown fields are kept, enums are open
// strings (the service lists no values for them), int64 values and date-times stay strings.

const str = () => nullishString;
const object = () => opt(map(z.unknown()));
const objects = () => list(map(z.unknown()));

/**
 * The `@type` of an expanded object: `type.googleapis.com/` and the full type name. The service's
 * package prefix (`c1.api.`, ...) is not part of the SDK's contract; the type name and version are.
 *
 * @group Wire model
 */
export type TypeUrl<Name extends string> = `type.googleapis.com/${string}.${Name}`;

const AppFields = loose({
  accessModel: str(),
  annotations: object(),
  appAccountId: str(),
  appAccountName: str(),
  appOwners: objects(),
  appUserMapper: object(),
  certifyPolicyId: str(),
  connectorVersion: nullishNumber,
  createdAt: str(),
  defaultRequestCatalogId: str(),
  deletedAt: str(),
  description: str(),
  displayName: str(),
  enableConnectorSourcedOwnership: nullishBoolean,
  fieldMask: str(),
  grantPolicyId: str(),
  iconUrl: str(),
  id: str(),
  identityMatching: str(),
  instructions: str(),
  isDirectory: nullishBoolean,
  isManuallyManaged: nullishBoolean,
  logoUri: str(),
  matchBatonRef: object(),
  monthlyCostUsd: nullishNumber,
  parentAppId: str(),
  revokeGrantSources: nullishBoolean,
  revokePolicyId: str(),
  strictAccessEntitlementProvisioning: nullishBoolean,
  updatedAt: str(),
  userCount: str(),
});
/**
 * An app (`app.v1.App`), reached from a view's `appPath`.
 *
 * @group Wire model
 */
export interface App extends z.output<typeof AppFields> {
  /** `type.googleapis.com/<package>.app.v1.App`. */
  readonly '@type': TypeUrl<'app.v1.App'>;
}

const AppUserFields = loose({
  agentStatus: str(),
  appId: str(),
  appUserType: str(),
  createdAt: str(),
  deletedAt: str(),
  displayName: str(),
  email: str(),
  emails: nullishStrings,
  employeeIds: nullishStrings,
  id: str(),
  identityUserId: str(),
  isExternal: nullishBoolean,
  nhiDetail: str(),
  nhiType: str(),
  profile: object(),
  status: object(),
  updatedAt: str(),
  username: str(),
  usernames: nullishStrings,
});
/**
 * An account in an app (`app.v1.AppUser`), reached from a view's `appUserPath`.
 *
 * @group Wire model
 */
export interface AppUser extends z.output<typeof AppUserFields> {
  /** `type.googleapis.com/<package>.app.v1.AppUser`. */
  readonly '@type': TypeUrl<'app.v1.AppUser'>;
}

const AppEntitlementFields = loose({
  alias: str(),
  annotations: object(),
  appId: str(),
  appResourceId: str(),
  appResourceTypeId: str(),
  certifyPolicyId: str(),
  complianceFrameworkValueIds: nullishStrings,
  createdAt: str(),
  defaultValuesApplied: nullishBoolean,
  deletedAt: str(),
  deprovisionerPolicy: object(),
  description: str(),
  displayName: str(),
  durationGrant: str(),
  durationUnset: object(),
  emergencyGrantEnabled: nullishBoolean,
  emergencyGrantPolicyId: str(),
  externalId: str(),
  grantCount: str(),
  grantPolicyId: str(),
  id: str(),
  isAutomationEnabled: nullishBoolean,
  isManuallyManaged: nullishBoolean,
  matchBatonId: str(),
  overrideAccessRequestsDefaults: nullishBoolean,
  provisionerPolicy: object(),
  purpose: str(),
  requestSchemaId: str(),
  revokePolicyId: str(),
  riskLevelValueId: str(),
  slug: str(),
  sourceConnectorIds: object(),
  systemBuiltin: nullishBoolean,
  updatedAt: str(),
  userEditedMask: str(),
});
/**
 * An entitlement of an app (`app.v1.AppEntitlement`), reached from a view's `entitlementsPath`.
 *
 * @group Wire model
 */
export interface ExpandedAppEntitlement extends z.output<typeof AppEntitlementFields> {
  /** `type.googleapis.com/<package>.app.v1.AppEntitlement`. */
  readonly '@type': TypeUrl<'app.v1.AppEntitlement'>;
}

const UserFields = loose({
  createdAt: str(),
  delegatedUserId: str(),
  deletedAt: str(),
  department: str(),
  departmentSources: objects(),
  directoryIds: nullishStrings,
  directoryStatus: str(),
  directoryStatusSources: objects(),
  displayName: str(),
  email: str(),
  emailSources: objects(),
  emails: nullishStrings,
  employeeIdSources: objects(),
  employeeIds: nullishStrings,
  employmentStatus: str(),
  employmentStatusSources: objects(),
  employmentType: str(),
  employmentTypeSources: objects(),
  id: str(),
  jobTitle: str(),
  jobTitleSources: objects(),
  managerIds: nullishStrings,
  managerSources: objects(),
  origin: str(),
  profile: object(),
  roleIds: nullishStrings,
  status: str(),
  type: str(),
  updatedAt: str(),
  username: str(),
  usernameSources: objects(),
  usernames: nullishStrings,
});
/**
 * A person of the tenant (`user.v1.User`), reached from `userPath`, `createdByUserPath`,
 * `identityUserPath`, `approversPath` and `stepApproversPath`.
 *
 * @group Wire model
 */
export interface User extends z.output<typeof UserFields> {
  /** `type.googleapis.com/<package>.user.v1.User`. */
  readonly '@type': TypeUrl<'user.v1.User'>;
}

const AccessReviewFields = loose({
  accessReviewTemplateId: str(),
  accuracyIssueAction: str(),
  autoCloseCampaign: nullishBoolean,
  autoCloseDecision: str(),
  autoGenerateReport: nullishBoolean,
  autoResolve: nullishBoolean,
  autoStartCampaign: nullishBoolean,
  bindings: object(),
  campaignHealth: object(),
  campaignInsights: object(),
  closedAt: str(),
  columnConfig: object(),
  completionDate: str(),
  connectorSourcesFrozenAt: str(),
  createdAt: str(),
  createdById: str(),
  defaultView: str(),
  description: str(),
  displayName: str(),
  errorState: str(),
  exclusionScope: object(),
  exemptCertifiedAccessConflicts: nullishBoolean,
  expectedTicketCount: nullishNumber,
  hasAccuracySupport: nullishBoolean,
  id: str(),
  inclusionScope: object(),
  multiApp: object(),
  notificationConfig: object(),
  policyId: str(),
  reviewInstructions: str(),
  reviewerAttributeConfig: object(),
  scheduledStartDate: str(),
  scope: object(),
  scopeType: str(),
  scopeV2: object(),
  scopingVersion: str(),
  signatureConfig: object(),
  singleApp: object(),
  startedAt: str(),
  state: str(),
  updatedAt: str(),
  usePolicyOverride: nullishBoolean,
});
/**
 * An access review campaign (`accessreview.v1.AccessReview`), reached from `accessReviewPath`.
 *
 * @group Wire model
 */
export interface AccessReview extends z.output<typeof AccessReviewFields> {
  /** `type.googleapis.com/<package>.accessreview.v1.AccessReview`. */
  readonly '@type': TypeUrl<'accessreview.v1.AccessReview'>;
}

const AppResourceFields = loose({
  accessConfigId: str(),
  agentTrait: object(),
  annotations: object(),
  appId: str(),
  appResourceTypeId: str(),
  createdAt: str(),
  customDescription: str(),
  deletedAt: str(),
  description: str(),
  displayName: str(),
  externalId: str(),
  grantCount: str(),
  id: str(),
  matchBatonId: str(),
  nhiDetail: str(),
  nhiType: str(),
  parentAppResourceId: str(),
  parentAppResourceTypeId: str(),
  profile: object(),
  secretTrait: object(),
  updatedAt: str(),
});
/**
 * A resource of an app (`app.v1.AppResource`), reached from `roleResourcePath`,
 * `scopeResourcePath` and `principalResourcePath`.
 *
 * @group Wire model
 */
export interface AppResource extends z.output<typeof AppResourceFields> {
  /** `type.googleapis.com/<package>.app.v1.AppResource`. */
  readonly '@type': TypeUrl<'app.v1.AppResource'>;
}

const AppResourceTypeFields = loose({
  appId: str(),
  createdAt: str(),
  deletedAt: str(),
  displayName: str(),
  id: str(),
  traitIds: nullishStrings,
  updatedAt: str(),
});
/**
 * A resource type of an app (`app.v1.AppResourceType`).
 *
 * @group Wire model
 */
export interface AppResourceType extends z.output<typeof AppResourceTypeFields> {
  /** `type.googleapis.com/<package>.app.v1.AppResourceType`. */
  readonly '@type': TypeUrl<'app.v1.AppResourceType'>;
}

declare const unknownTypeUrl: unique symbol;
/**
 * The `@type` of an expanded object this SDK has no type for. The brand exists only for the
 * compiler: comparing `@type` with a known type's URL narrows to that type, never to this one.
 *
 * @group Wire model
 */
export type UnknownTypeUrl = string & { readonly [unknownTypeUrl]: true };

/**
 * An expanded object of a type this SDK does not know (or one the service sent without `@type`):
 * kept exactly as it came.
 *
 * @group Wire model
 */
export interface UnknownExpanded {
  /** The object's serialized type. */
  readonly '@type'?: UnknownTypeUrl | null | undefined;
  /** The object's fields, as sent. */
  readonly [field: string]: unknown;
}

/**
 * The expanded object types this SDK knows, by name: the schema that checks each and the end of
 * its `@type`.
 *
 * @group Wire model
 */
export const ExpandedTypes = {
  App: { suffix: '.app.v1.App', schema: AppFields },
  AppUser: { suffix: '.app.v1.AppUser', schema: AppUserFields },
  AppEntitlement: { suffix: '.app.v1.AppEntitlement', schema: AppEntitlementFields },
  User: { suffix: '.user.v1.User', schema: UserFields },
  AccessReview: { suffix: '.accessreview.v1.AccessReview', schema: AccessReviewFields },
  AppResource: { suffix: '.app.v1.AppResource', schema: AppResourceFields },
  AppResourceType: { suffix: '.app.v1.AppResourceType', schema: AppResourceTypeFields },
} as const;

/**
 * The name of an expanded object type this SDK knows.
 *
 * @group Wire model
 */
export type ExpandedTypeName = keyof typeof ExpandedTypes;

/**
 * Each known expanded type by name.
 *
 * @group Wire model
 */
export interface ExpandedTypeMap {
  /** An app. */
  App: App;
  /** An app account. */
  AppUser: AppUser;
  /** An app entitlement. */
  AppEntitlement: ExpandedAppEntitlement;
  /** A user. */
  User: User;
  /** An access review. */
  AccessReview: AccessReview;
  /** An app resource. */
  AppResource: AppResource;
  /** An app resource type. */
  AppResourceType: AppResourceType;
}

/**
 * Any object of a page's `expanded`: one of the known types, or an unknown one as it came.
 * Narrow on `@type`, or with {@link expandedTypeName}.
 *
 * @group Wire model
 */
export type ExpandedObject = ExpandedTypeMap[ExpandedTypeName] | UnknownExpanded;

const PREFIX = 'type.googleapis.com/';

/**
 * The known type an expanded object's `@type` names, or `undefined` for any other.
 *
 * @example
 * if (expandedTypeName(object) === 'App') console.log((object as App).displayName);
 *
 * @group Wire model
 */
export function expandedTypeName(object: { readonly '@type'?: unknown }): ExpandedTypeName | undefined {
  const type = object['@type'];
  if (typeof type !== 'string' || !type.startsWith(PREFIX)) return undefined;
  for (const name of Object.keys(ExpandedTypes) as ExpandedTypeName[]) {
    if (type.endsWith(ExpandedTypes[name].suffix)) return name;
  }
  return undefined;
}
