/**
 * A broad page, as users who expand everything get it: 100 views with every expand path (`*`),
 * 150-200 related objects of mixed `@type` in `expanded` (about a third of the bytes), 5 to 10
 * annotations per task, and the nulls and unknown fields a real service sprinkles in.
 */
import { expandPage } from '../src/testing/expand.ts';
import { FakeData, type WireTask } from '../src/testing/fake-data.ts';
import { SeededRandom } from '../src/testing/random.ts';

/** The views and `expanded` of one broad page (without `nextPageToken`). */
export function broadPage(seed = 17): { list: unknown[]; expanded: unknown[] } {
  const random = new SeededRandom(seed);
  const pick = (n: number) => random.int(n);
  const data = new FakeData(seed);
  const tasks = Array.from({ length: 100 }, (_, i): WireTask => {
    const task = data.task() as WireTask & Record<string, unknown>;
    // More people and insights than the fake tenant's small pools: a tenant's page touches many.
    task.userId = `user-${pick(70)}`;
    task.approverIds = Array.from({ length: 1 + pick(3) }, () => `user-${pick(70)}`);
    task.stepApproverIds = [`user-${pick(70)}`, null as unknown as string];
    task.insightIds = Array.from({ length: pick(2) }, () => `insight-${pick(100)}`);
    task.annotations = Array.from({ length: 5 + pick(6) }, (_, j) => ({
      '@type': `type.googleapis.com/c1.api.task.v1.${['RiskAnnotation', 'SodConflict', 'UsageSummary'][j % 3]}`,
      score: pick(100),
      reason: j % 4 ? 'Unused for 90 days; peers do not hold this entitlement.' : null,
      evidence: { lastSeen: '2026-09-30T12:00:00Z', peers: pick(20), source: 'usage-sync' },
      ...(j % 5 === 0 ? { newerField: { nested: [1, 2, 3] } } : {}),
    }));
    if (i % 7 === 0) task.deletedAt = null;
    if (i % 9 === 0) task.externalRefs = null as unknown as [];
    task.serviceAddedField = i % 3 ? { rollout: 'beta' } : null;
    return task;
  });
  const page = expandPage(tasks, ['*']);
  for (const [i, view] of (page.list as Record<string, unknown>[]).entries()) {
    if (i % 11 === 0) view.accessReviewPath = null;
    view.viewAddedField = 'x';
  }
  return page;
}

/** The broad page as the service would send it, with this `nextPageToken`. */
export function broadPageText(nextPageToken = ''): string {
  return JSON.stringify({ ...broadPage(), nextPageToken });
}
