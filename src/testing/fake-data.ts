import { KNOWN_TASK_TYPE_KINDS } from '../../schemas/request-values.ts';
import { fakeTaskType } from './fake-task-types.ts';
import { SeededRandom } from './random.ts';
import type { FakeTaskVariant, WireEntitlement, WireRule, WireTask } from './wire-types.ts';

export type { FakeTaskVariant, WireEntitlement, WireRule, WireTask } from './wire-types.ts';

/**
 * What {@link FakeData.task} takes: any task field, plus which variant to build when `type` is not given.
 *
 * @group Testing kit
 */
export type FakeTaskInput = Partial<WireTask> & { variant?: FakeTaskVariant };

const VARIANTS: readonly FakeTaskVariant[] = KNOWN_TASK_TYPE_KINDS;
const APPS = ['app-github', 'app-okta', 'app-aws', 'app-salesforce', 'app-slack'];
const USERS = ['user-ada', 'user-grace', 'user-alan', 'user-edsger', 'user-barbara', 'user-ken'];
const _DAY_MS = 24 * 60 * 60 * 1000;
/** How far back generated tasks are dated. */
const SPAN_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Options of {@link FakeData}.
 *
 * @group Testing kit
 */
export interface FakeDataOptions {
  /**
   * The moment generated tasks are dated back from, in ms: they fall in the 90 days before it. The
   * same seed gives the same dates relative to it; pass a fixed value for data that never changes.
   * Default: `Date.now()` when the builder is made.
   */
  readonly now?: number | undefined;
}

/**
 * Seedable builders of realistic wire objects. The same seed, `now` and calls give the same data;
 * tasks are dated over the 90 days before `now`.
 *
 * @example
 * const data = new FakeData(42);
 * const tasks = [data.task({ variant: 'revoke' }), data.task({ state: 'TASK_STATE_CLOSED' })];
 *
 * @group Testing kit
 */
export class FakeData {
  readonly #random: SeededRandom;
  readonly #now: number;
  #sequence = 0;

  constructor(seed = 1, options: FakeDataOptions = {}) {
    this.#random = new SeededRandom(seed);
    this.#now = options.now ?? Date.now();
  }

  /** A realistic task (2 to 4 KB of JSON, with a policy, form and annotations); `overrides` win. */
  task(overrides: FakeTaskInput = {}): WireTask {
    const r = this.#random;
    const n = ++this.#sequence;
    const { variant = VARIANTS[(n - 1) % VARIANTS.length] as FakeTaskVariant, ...fields } = overrides;
    const appId = r.pick(APPS);
    const userId = r.pick(USERS);
    const opener = r.pick(USERS);
    // Spread over the last 90 days, to the second, so date filters and sorting have something to do.
    const created = this.#now - (1 + r.int(SPAN_DAYS * 24 * 3600)) * 1000;
    const createdAt = new Date(created).toISOString();
    return {
      id: `task-${r.id(20)}`,
      numericId: String(1000 + n),
      displayName: `${variant[0]?.toUpperCase()}${variant.slice(1)} ${appId.slice(4)} access for ${userId.slice(5)}`,
      description: `Ticket ${1000 + n}: ${r.pick(['on-call rotation', 'quarterly review', 'new project', 'offboarding', 'audit finding'])}`,
      state: 'TASK_STATE_OPEN',
      processing: 'TASK_PROCESSING_TYPE_WAITING',
      origin: r.pick([
        'TASK_ORIGIN_WEBAPP',
        'TASK_ORIGIN_API',
        'TASK_ORIGIN_AUTOMATION',
        'TASK_ORIGIN_ACCESS_REVIEW',
      ]),
      type: fakeTaskType(this.#random, variant, appId, userId, n, created),
      actions: [
        'TASK_ACTION_TYPE_APPROVE',
        'TASK_ACTION_TYPE_DENY',
        'TASK_ACTION_TYPE_COMMENT',
        'TASK_ACTION_TYPE_REASSIGN',
      ],
      annotations: [
        {
          '@type': 'type.googleapis.com/svc.api.task.v1.RiskAnnotation',
          score: r.int(100),
          reasons: ['dormant account'],
        },
      ],
      approverIds: [],
      stepApproverIds: [r.pick(USERS)],
      commentCount: r.int(5),
      createdAt,
      updatedAt: createdAt,
      deletedAt: null,
      createdByUserId: opener,
      userId,
      data: { source: 'fake-tenant', sequence: n },
      emergencyAccess: false,
      externalRefs: [],
      insightIds: [`ins-${r.int(30)}`],
      recommendation: r.pick(['INSIGHT_RECOMMENDATION_APPROVE', 'INSIGHT_RECOMMENDATION_REVIEW']),
      policyGenerationId: `gen-${r.int(9)}`,
      revocationTargets: [],
      form: {
        id: 'form-justification',
        displayName: 'Justification',
        fields: [{ name: 'reason', displayName: 'Reason', required: true, stringField: { multiline: true } }],
        fieldGroups: [{ name: 'main', displayName: 'Main', default: true, fields: ['reason'] }],
        fieldRelationships: [],
      },
      policy: {
        current: {
          id: `step-${n}-1`,
          policyGenerationId: 'gen-1',
          state: 'POLICY_STEP_STATE_ACTIVE',
          approval: { state: 'OPEN', outcome: '' },
        },
        history: [],
        next: [{ provision: { state: '' } }],
        policy: {
          id: 'policy-standard',
          displayName: 'Standard access policy',
          description: 'Manager approval, then app owner approval, then provisioning.',
          policyType: 'POLICY_TYPE_GRANT',
          policySteps: { grant: { steps: [{ approval: {} }, { approval: {} }, { provision: {} }] } },
          createdAt: '2025-06-01T00:00:00Z',
          updatedAt: '2025-06-01T00:00:00Z',
        },
      },
      ...fields,
    };
  }

  /** `count` tasks cycling through every variant. */
  tasks(count: number, overrides: FakeTaskInput = {}): WireTask[] {
    return Array.from({ length: count }, () => this.task(overrides));
  }

  /**
   * `count` tasks as a real tenant's history looks, in creation order: most of them recent, a
   * few bursts of many tasks created at one instant (an access review opening its certifications),
   * and about a third still open, the others closed, one in twenty deleted.
   */
  history(count: number): WireTask[] {
    const r = this.#random;
    const span = SPAN_DAYS * DAY_MS;
    const times: number[] = [];
    // One task in five belongs to a burst of 50 to 1,000 tasks at one instant.
    while (times.length < count) {
      // Most tasks are recent: the age is skewed towards zero (the square of a uniform draw).
      const age = Math.floor(r.next() ** 2 * span) + 1;
      const at = this.#now - age;
      const burst = r.next() < 0.002 ? 50 + r.int(951) : 1;
      for (let i = 0; i < burst && times.length < count; i++) times.push(at);
    }
    times.sort((a, b) => a - b);
    return times.map((created) => {
      // A task is closed within a week of its creation, unless that is still to come (then it is open),
      // or never: a third of the tasks are open.
      const closing = r.next() < 0.17 ? undefined : created + r.int(DAY_MS * 7);
      const state = closing !== undefined && closing <= this.#now ? 'TASK_STATE_CLOSED' : 'TASK_STATE_OPEN';
      const createdAt = new Date(created).toISOString();
      const closedAt = state === 'TASK_STATE_CLOSED' ? (closing as number) : created;
      const deletedAt =
        r.next() < 0.05 ? new Date(Math.min(this.#now, closedAt + r.int(DAY_MS))).toISOString() : null;
      return this.task({
        createdAt,
        updatedAt: new Date(closedAt).toISOString(),
        state,
        deletedAt,
      });
    });
  }

  /** A finding transformation rule; `overrides` win. */
  rule(overrides: Partial<WireRule> = {}): WireRule {
    const n = ++this.#sequence;
    return {
      id: `rule-${this.#random.id(12)}`,
      appId: '',
      templateId: '',
      displayName: `Rule ${n}`,
      description: 'Raise severity of exposed credentials',
      condition: "finding.severity == 'FINDING_SEVERITY_LOW'",
      enabled: true,
      evaluationOrder: n,
      findingType: 'FINDING_TYPE_UNSPECIFIED',
      transforms: [
        { setSeverity: { severity: 'FINDING_SEVERITY_HIGH' } },
        { setTags: { tags: { triage: 'auto' } } },
      ],
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
      ...overrides,
    };
  }

  /** An app entitlement. */
  entitlement(appId: string, overrides: Partial<WireEntitlement> = {}): WireEntitlement {
    const n = ++this.#sequence;
    return { id: `ent-${n}`, appId, displayName: `Entitlement ${n}`, slug: `role-${n}`, ...overrides };
  }
}

const shared = new FakeData(1);

/**
 * A realistic task from a shared, seeded generator; see {@link FakeData} for your own seed.
 *
 * @group Testing kit
 */
export function fakeTask(overrides: FakeTaskInput = {}): WireTask {
  return shared.task(overrides);
}

/**
 * A finding transformation rule from a shared, seeded generator.
 *
 * @group Testing kit
 */
export function fakeRule(overrides: Partial<WireRule> = {}): WireRule {
  return shared.rule(overrides);
}
