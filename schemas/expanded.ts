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

const URL = 'type.googleapis.com/c1.api.';

/**
 * The `@type` of each expanded object type this SDK knows, with the `c1.api` package prefix of the
 * published API description. Tenants may name the package otherwise (`svc.api.app.v1.App`): to
 * narrow an object whatever its prefix, use {@link isExpandedType}.
 *
 * @example
 * if (isExpandedType(app, 'App')) console.log(app.displayName);
 *
 * @group Wire model
 */
export const ExpandedType = Object.freeze({
  App: `${URL}app.v1.App`,
  AppUser: `${URL}app.v1.AppUser`,
  AppEntitlement: `${URL}app.v1.AppEntitlement`,
  User: `${URL}user.v1.User`,
  AccessReview: `${URL}accessreview.v1.AccessReview`,
  AppResource: `${URL}app.v1.AppResource`,
  AppResourceType: `${URL}app.v1.AppResourceType`,
} as const);

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
  /** `ExpandedType.App`. */
  readonly '@type': (typeof ExpandedType)['App'];
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
  /** `ExpandedType.AppUser`. */
  readonly '@type': (typeof ExpandedType)['AppUser'];
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
  /** `ExpandedType.AppEntitlement`. */
  readonly '@type': (typeof ExpandedType)['AppEntitlement'];
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
  /** `ExpandedType.User`. */
  readonly '@type': (typeof ExpandedType)['User'];
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
  /** `ExpandedType.AccessReview`. */
  readonly '@type': (typeof ExpandedType)['AccessReview'];
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
  /** `ExpandedType.AppResource`. */
  readonly '@type': (typeof ExpandedType)['AppResource'];
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
  /** `ExpandedType.AppResourceType`. */
  readonly '@type': (typeof ExpandedType)['AppResourceType'];
}

/**
 * The `@type` of an {@link UnknownExpanded} object: at run time the string the service sent. For the compiler it is a type apart from the known URLs, so that comparing `@type` with
 * {@link ExpandedType}`.App` narrows to `App` alone. Read it as a string (`String(object['@type'])`),
 * or name the type with {@link expandedTypeName}. Type only: there is no value to import.
 *
 * @group Wire model
 */
export declare enum UnknownTypeUrl {
  /** Any `@type` but the known ones. */
  Other = 'type.googleapis.com/(a type this SDK does not know)',
}

/**
 * An expanded object other than the type a path expects: of a type this SDK does not know, sent
 * without `@type`, or (rarely) of another known type where the path usually locates this one. Kept
 * exactly as it came; {@link expandedTypeName} tells which known type it is, if any.
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
 * @internal The schema that checks each known expanded type.
 */
export const EXPANDED_SCHEMAS = {
  App: AppFields,
  AppUser: AppUserFields,
  AppEntitlement: AppEntitlementFields,
  User: UserFields,
  AccessReview: AccessReviewFields,
  AppResource: AppResourceFields,
  AppResourceType: AppResourceTypeFields,
} as const;

/**
 * The name of an expanded object type this SDK knows.
 *
 * @group Wire model
 */
export type ExpandedTypeName = keyof typeof ExpandedType;

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
 * Narrow on `@type` (compare it with {@link ExpandedType}), or with {@link expandedTypeName}.
 *
 * @group Wire model
 */
export type ExpandedObject = ExpandedTypeMap[ExpandedTypeName] | UnknownExpanded;

// A type is known by what follows its package prefix (`app.v1.App`), which differs by source.
const typeKey = (type: string) => /[a-z]\w*\.v\d\w*\.\w+$/.exec(type)?.[0];
const byType = new Map<string | undefined, ExpandedTypeName>(
  Object.entries(ExpandedType).map(([name, type]) => [typeKey(type), name as ExpandedTypeName]),
);

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
  return typeof type === 'string' && type.startsWith('type.googleapis.com/')
    ? byType.get(typeKey(type))
    : undefined;
}

/**
 * Whether an expanded object is of the known type `name`, whatever package prefix its `@type`
 * carries (`c1.api.app.v1.App` and `svc.api.app.v1.App` are both an `App`); narrows it.
 *
 * @example
 * const app = resolveExpanded(view, 'appPath');
 * console.log(isExpandedType(app, 'App') ? app.displayName : '-');
 *
 * @group Wire model
 */
export function isExpandedType<N extends ExpandedTypeName>(
  object: { readonly '@type'?: unknown } | null | undefined,
  name: N,
): object is ExpandedTypeMap[N] {
  return !!object && expandedTypeName(object) === name;
}
