/**
 * The change feed survives crashes exactly: between runs the tenant closes, creates, deletes,
 * comments on and forgets tasks; each incremental run (`idgov sync --db` in a child process) is
 * SIGKILLed at random pages and resumed until it completes. The feed rows each run wrote must be
 * exactly the changes between the copy before and after it (one per changed task, of its kind: none
 * twice, none missing), and the whole feed folded from seq 0 must be the copy. Faults are on
 * throughout. CHANGES_CRASH_SEEDS sets the seeds (default 3).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { SeededRandom } from '../../src/testing/random.ts';
import { byTask, copyAndFeed, expectedChanges, fold } from '../helpers/change-feed.ts';
import { syncThroughKills, syncUntil } from '../helpers/child.ts';
import { copiedTasks, differences, expectedTasks } from '../helpers/task-copy.ts';

const SEEDS = Number(process.env.CHANGES_CRASH_SEEDS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'idgov-changes-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The copy's rows and its feed, read as a reader would (the copy is closed between runs). */
const read = (db: string) => copyAndFeed(new SqliteSyncStore({ path: db, readOnly: true }));

describe('the change feed of a sync SIGKILLed at random pages, faults on', () => {
  const tenant = new FakeTenant({
    history: 4_000,
    seed: 61,
    faults: { serverError: 0.03, rateLimit: 0.01, drop: 0.01, retryAfterSeconds: 0, seed: 7 },
  });
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
  });
  afterAll(() => close());

  for (let seed = 1; seed <= SEEDS; seed++) {
    it(`seed ${seed}: each run's rows are exactly the changes it made, and the feed folds to the copy`, async () => {
      const random = new SeededRandom(seed * 104_729);
      const db = join(dir, `feed-${seed}.db`);
      const first = await syncUntil(tenant, db, 3 + random.int(10));
      if (first.signal !== 'SIGKILL') expect(first.code, first.stderr).toBe(0);
      let kills = first.signal === 'SIGKILL' ? 1 : 0;
      const purged = new Set<string>();
      for (let round = 0; round < 3; round++) {
        const before = await read(db);
        if (round > 0 || first.signal !== 'SIGKILL') {
          // Every kind of change between runs. The first round finishes a first copy that was killed
          // instead: a resumed run does not see what changed after it began (the next run does).
          tenant.closeTasks(5 + random.int(30));
          tenant.createTasks(5 + random.int(200));
          tenant.deleteTasks(
            3 + random.int(10),
            (task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt,
          );
          tenant.commentOnTasks(3 + random.int(20), (task) => !task.deletedAt);
          for (const task of tenant.purgeTasks(
            1 + random.int(4),
            (t) => t.state === 'TASK_STATE_OPEN' && !t.deletedAt,
          )) {
            purged.add(task.id as string);
          }
        }
        const ended = await syncThroughKills(tenant, db, (k) => (k < 2 ? 1 + random.int(12) : undefined));
        expect(ended.result.code, ended.result.stderr).toBe(0);
        kills += ended.kills;
        const after = await read(db);
        const last = before.feed.at(-1)?.seq ?? 0;
        const written = after.feed.filter((change) => change.seq > last);
        expect(byTask(written), `round ${round}`).toEqual(expectedChanges(before.copy, after.copy));
        // The copy equals the tenant, but for the tasks the tenant forgot: it keeps them, vanished.
        const copied = copiedTasks(db);
        for (const id of purged) {
          expect(after.copy.get(id)?.vanished, id).toBe(true);
          copied.delete(id);
        }
        expect(differences(copied, expectedTasks(tenant.tasks)), `round ${round}`).toEqual([]);
      }
      expect(kills).toBeGreaterThan(1);
      const { copy, feed } = await read(db);
      expect(fold(feed)).toEqual(copy);
      expect(feed.map((change) => change.seq)).toEqual(feed.map((_, i) => i + 1));
    }, 240_000);
  }
});
