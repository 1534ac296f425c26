// Realistic related objects for a fake page's `expanded`: the fields the service publishes for each
// type, about 1 KB each, with the nulls, unknown fields and new enum values a real tenant sends.

/** A stable small number from an ID, so an object is the same wherever it appears. */
function hashOf(id: string): number {
  let hash = 2166136261;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619);
  return hash >>> 0;
}

const stamp = (h: number, days: number) =>
  new Date(Date.UTC(2026, 0, 1) - ((h % days) + 1) * 86_400_000).toISOString();
const title = (id: string) => id.replace(/[-_]/g, ' ');

/** Where the service learned a user attribute: one entry of a `...Sources` list. */
const source = (appId: string, id: string, value: string) => ({
  appId,
  appUserId: `${appId}-${id}`,
  value,
  lastSyncedAt: '2026-10-01T04:00:00Z',
});

type Builder = (id: string, h: number) => Record<string, unknown>;

const BUILDERS: Record<string, Builder> = {
  'app.v1.App': (id, h) => ({
    id,
    displayName: `App ${title(id)}`,
    description: 'Source control, CI and package registry for engineering teams.',
    accessModel: h % 5 ? 'ACCESS_MODEL_REQUESTABLE' : 'ACCESS_MODEL_FROM_A_NEWER_SERVICE',
    annotations: { tier: h % 2 ? 'gold' : 'silver', sox: h % 3 === 0 },
    appAccountId: `acct-${h % 1000}`,
    appAccountName: `acme-${h % 97}`,
    appOwners: [{ userId: `user-${h % 40}`, source: 'manual' }],
    appUserMapper: null,
    certifyPolicyId: `pol-cert-${h % 4}`,
    connectorVersion: (h % 4) + 1,
    createdAt: stamp(h, 700),
    defaultRequestCatalogId: `cat-${h % 9}`,
    deletedAt: null,
    enableConnectorSourcedOwnership: h % 2 === 0,
    grantPolicyId: `pol-grant-${h % 6}`,
    iconUrl: `https://cdn.example.test/icons/${id}.png`,
    identityMatching: 'APP_USER_IDENTITY_MATCHING_STRICT',
    instructions: 'Request access through the catalog; approvals go to the app owners.',
    isDirectory: false,
    isManuallyManaged: h % 7 === 0,
    logoUri: `https://cdn.example.test/logos/${id}.svg`,
    monthlyCostUsd: (h % 50) * 100,
    parentAppId: '',
    revokePolicyId: `pol-revoke-${h % 3}`,
    strictAccessEntitlementProvisioning: true,
    updatedAt: stamp(h, 30),
    userCount: String(1000 + (h % 9000)),
    ssoProvider: { kind: 'saml', entityId: `urn:acme:${id}` },
  }),
  'app.v1.AppUser': (id, h) => ({
    id,
    appId: `app-${h % 12}`,
    displayName: `Account ${title(id)}`,
    email: `${id}@example.test`,
    emails: [`${id}@example.test`],
    employeeIds: [`E-${h % 10_000}`],
    identityUserId: `user-${h % 40}`,
    agentStatus: 'AGENT_STATUS_UNSPECIFIED',
    appUserType: h % 9 ? 'APP_USER_TYPE_USER' : 'APP_USER_TYPE_SERVICE_ACCOUNT',
    isExternal: h % 11 === 0,
    nhiDetail: null,
    nhiType: 'NHI_TYPE_UNSPECIFIED',
    profile: { department: 'Engineering', level: h % 8, location: 'Berlin' },
    status: { status: 'STATUS_ENABLED', details: 'active' },
    username: id,
    usernames: [id],
    createdAt: stamp(h, 500),
    deletedAt: null,
    updatedAt: stamp(h, 20),
  }),
  'app.v1.AppEntitlement': (id, h) => ({
    id,
    appId: `app-${h % 12}`,
    alias: `role-${h % 30}`,
    displayName: `Entitlement ${title(id)}`,
    description: 'Grants write access to the repositories of one team.',
    appResourceId: `res-${h % 50}`,
    appResourceTypeId: `rt-${h % 5}`,
    complianceFrameworkValueIds: h % 2 ? ['cf-sox'] : null,
    durationGrant: h % 3 ? '28800s' : null,
    emergencyGrantEnabled: h % 4 === 0,
    externalId: `team:${h % 30}:write`,
    grantCount: String(h % 500),
    grantPolicyId: `pol-grant-${h % 6}`,
    isAutomationEnabled: false,
    purpose: 'APP_ENTITLEMENT_PURPOSE_PERMISSION',
    riskLevelValueId: h % 5 ? 'risk-low' : 'risk-high',
    slug: `write-${h % 30}`,
    sourceConnectorIds: { connector: `c-${h % 3}` },
    systemBuiltin: false,
    createdAt: stamp(h, 600),
    updatedAt: stamp(h, 40),
  }),
  'user.v1.User': (id, h) => ({
    id,
    displayName: `User ${title(id)}`,
    email: `${id}@example.test`,
    emails: [`${id}@example.test`],
    username: id,
    usernames: [id],
    department: ['Engineering', 'Finance', 'Sales', 'Security'][h % 4],
    departmentSources: [source('hris', id, 'Engineering')],
    emailSources: [source('directory', id, `${id}@example.test`), source('hris', id, `${id}@example.test`)],
    jobTitleSources: [source('hris', id, 'Engineer')],
    managerSources: [source('hris', id, `user-${(h + 1) % 40}`)],
    employmentStatusSources: [source('hris', id, 'Active')],
    usernameSources: [source('directory', id, id)],
    directoryIds: [`dir-${h % 2}`],
    directoryStatus: 'DIRECTORY_STATUS_ENABLED',
    employeeIds: [`E-${h % 10_000}`],
    employmentStatus: 'Active',
    employmentType: 'Full time',
    jobTitle: ['Engineer', 'Analyst', 'Manager'][h % 3],
    managerIds: [`user-${(h + 1) % 40}`],
    origin: h % 6 ? 'USER_ORIGIN_DIRECTORY' : 'USER_ORIGIN_FROM_A_NEWER_SERVICE',
    profile: { costCenter: `CC-${h % 20}`, office: 'HQ' },
    roleIds: h % 10 ? [] : ['role-admin'],
    status: 'ENABLED',
    type: 'USER_TYPE_HUMAN',
    delegatedUserId: null,
    createdAt: stamp(h, 900),
    deletedAt: null,
    updatedAt: stamp(h, 10),
  }),
  'accessreview.v1.AccessReview': (id, h) => ({
    id,
    displayName: `Review ${title(id)}`,
    description: 'Quarterly review of privileged access.',
    state: 'ACCESS_REVIEW_STATE_STARTED',
    scopeType: 'SCOPE_TYPE_MULTI_APP',
    autoCloseCampaign: true,
    autoCloseDecision: 'AUTO_CLOSE_DECISION_REVOKE',
    expectedTicketCount: 100 + (h % 900),
    policyId: `pol-cert-${h % 4}`,
    reviewInstructions: 'Revoke access that was not used in 90 days.',
    inclusionScope: { apps: [`app-${h % 12}`] },
    campaignHealth: { score: (h % 100) / 100 },
    createdById: `user-${h % 40}`,
    scheduledStartDate: stamp(h, 60),
    startedAt: stamp(h, 50),
    closedAt: null,
    createdAt: stamp(h, 70),
    updatedAt: stamp(h, 5),
  }),
  'insight.v1.Insight': (id, h) => ({
    id,
    kind: h % 2 ? 'INSIGHT_KIND_UNUSED_ACCESS' : 'INSIGHT_KIND_PEER_OUTLIER',
    score: (h % 100) / 100,
    summary: 'Not used in the last 90 days; peers in the same team do not hold it.',
    evidence: { lastUsed: stamp(h, 200), peers: h % 12 },
  }),
};

/**
 * A realistic related object of `type` (`app.v1.App`, `user.v1.User`, ...) with this ID, as the
 * service would inline it in `expanded`. The same ID always gives the same object.
 *
 * @group Testing kit
 */
export function fakeExpandedObject(typeUrl: string, type: string, id: string): Record<string, unknown> {
  const build = BUILDERS[type];
  return { '@type': typeUrl, ...(build ? build(id, hashOf(id)) : { id, displayName: title(id) }) };
}
