import { fakeExpandedObject } from './expanded-objects.ts';
import type { WireTask } from './fake-data.ts';
import { appOf, variantOf } from './task-filter.ts';

const TYPE = 'type.googleapis.com/c1.api.';

// Which mask path fills which TaskView field, and with what related objects of the task.
const EXPANSIONS: ReadonlyArray<{
  path: string;
  field: string;
  type: string;
  ids: (task: WireTask, body: Record<string, unknown>) => Array<string | null | undefined>;
}> = [
  { path: 'app_id', field: 'appPath', type: 'app.v1.App', ids: (t) => [appOf(t)] },
  { path: 'user_id', field: 'userPath', type: 'user.v1.User', ids: (t) => [t.userId] },
  {
    path: 'created_by_user_id',
    field: 'createdByUserPath',
    type: 'user.v1.User',
    ids: (t) => [t.createdByUserId],
  },
  {
    path: 'identity_user_id',
    field: 'identityUserPath',
    type: 'user.v1.User',
    ids: (_, b) => [b.identityUserId as string],
  },
  {
    path: 'app_user_id',
    field: 'appUserPath',
    type: 'app.v1.AppUser',
    ids: (_, b) => [b.appUserId as string],
  },
  {
    path: 'access_review_id',
    field: 'accessReviewPath',
    type: 'accessreview.v1.AccessReview',
    ids: (_, b) => [b.accessReviewId as string],
  },
  {
    path: 'app_entitlement_ids',
    field: 'entitlementsPath',
    type: 'app.v1.AppEntitlement',
    ids: (_, b) => [b.appEntitlementId as string],
  },
  { path: 'approver_ids', field: 'approversPath', type: 'user.v1.User', ids: (t) => t.approverIds ?? [] },
  {
    path: 'step_approver_ids',
    field: 'stepApproversPath',
    type: 'user.v1.User',
    ids: (t) => t.stepApproverIds ?? [],
  },
  { path: 'insight_ids', field: 'insightsPath', type: 'insight.v1.Insight', ids: (t) => t.insightIds ?? [] },
];

/**
 * Builds one page's views and `expanded` array for an expand mask: each related object appears once
 * per page, and views point to it with `$.expanded[i]` (or `$.expanded[i,j]` for lists).
 *
 * @group Testing kit
 */
export function expandPage(tasks: readonly WireTask[], paths: readonly string[]) {
  const wanted = EXPANSIONS.filter((e) => paths.includes('*') || paths.includes(e.path));
  const expanded: Record<string, unknown>[] = [];
  const index = new Map<string, number>();
  const indexOf = (type: string, id: string) => {
    const key = `${type}/${id}`;
    let at = index.get(key);
    if (at === undefined) {
      at = expanded.push(fakeExpandedObject(TYPE + type, type, id)) - 1;
      index.set(key, at);
    }
    return at;
  };
  const list = tasks.map((task) => {
    const view: Record<string, unknown> = {
      task,
      objectPermissions: { read: true, edit: true, delete: false, extra: {} },
    };
    const variant = variantOf(task);
    const body = variant ? ((task.type as Record<string, Record<string, unknown>>)[variant] ?? {}) : {};
    for (const expansion of wanted) {
      const ids = expansion.ids(task, body).filter((id): id is string => !!id);
      if (ids.length)
        view[expansion.field] = `$.expanded[${ids.map((id) => indexOf(expansion.type, id)).join(',')}]`;
    }
    return view;
  });
  return { list, expanded };
}
