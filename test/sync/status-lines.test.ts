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
