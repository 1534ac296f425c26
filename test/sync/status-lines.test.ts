/** What `idgov status` prints of a copy: the service's state names shown so that they cannot act on a terminal. */
import { expect, it } from 'vitest';
import { statusLines } from '../../src/cli/status-command.ts';

it('prints a state holding escape sequences with them made harmless', () => {
  const text = statusLines({
    tasks: { TASK_STATE_OPEN: 3, '\u001b[2J\u001b[31mPWNED': 1 },
    deleted: 0,
    vanished: 0,
    lastSeq: 0,
    leases: { windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 },
  });
  expect(text).not.toContain('\u001b');
  expect(text).toContain('?[2J?[31mPWNED 1');
  expect(text).toContain('TASK_STATE_OPEN 3');
});

it('says who is at work: leases held, left behind, and a SQLite sync process between two windows or gone', () => {
  const none = { windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 };
  const run = {
    kind: 'full',
    startedAt: '2026-11-29T00:00:00.000Z',
    windowsDone: 1,
    windowsLeft: 3,
    pages: 9,
    tasks: 900,
  } as const;
  const base = { tasks: {}, deleted: 0, vanished: 0, lastSeq: 900, unfinishedRun: run };
  const lastSeen = new Date(Date.now() - 4_000).toISOString();
  const at = (status: Partial<Parameters<typeof statusLines>[0]>) =>
    statusLines({ ...base, leases: none, ...status })
      .split('\n')
      .filter((line) => /^(at work now|left behind|sync process)/.test(line));
  expect(at({ leases: { ...none, windowsHeld: 3, tasksRanOut: 1 } })).toEqual([
    'at work now: 3 windows and 0 open tasks held under live leases, being paged and refreshed',
    expect.stringMatching(
      /^left behind: 0 windows and 1 open task whose lease ran out without being let go: /,
    ),
  ]);
  // A live SQLite sync between two windows holds none for a moment: not said to be stopped.
  expect(at({ syncProcess: { pid: 41, host: 'db-1', lastSeen, gone: false } })).toEqual([
    'sync process: 41 on db-1, last seen 4 s ago',
    'at work now: no window or open task leased at this moment: the sync process is between two, or ending the run',
  ]);
  expect(at({ syncProcess: { pid: 41, host: 'db-1', lastSeen, gone: true } })).toEqual([
    expect.stringMatching(
      /^sync process: 41 on db-1, last seen 4 s ago: gone \(it ended without letting the copy go/,
    ),
    expect.stringMatching(
      /^at work now: nothing leased: no sync is paging or refreshing the run \(idgov sync resumes it;/,
    ),
  ]);
  // A completed copy no sync holds says nothing of work.
  expect(at({ unfinishedRun: undefined })).toEqual([]);
});
