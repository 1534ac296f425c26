/**
 * How a page's answer becomes the copy's rows, whatever the service sends: a task twice in one page,
 * nulls in the list, views without a task or an ID, expanded objects repeated or without a type.
 */
import { describe, expect, it } from 'vitest';
import type { TaskView } from '../../schemas/task-search.ts';
import { copyTime, expandedRows, taskRows } from '../../src/sync/run/rows.ts';

const view = (id: string, updatedAt: string, state = 'TASK_STATE_OPEN') =>
  ({ task: { id, state, createdAt: '2026-01-01T00:00:00Z', updatedAt } }) as TaskView;

describe('taskRows', () => {
  it('keeps a task repeated in one page once, its newest version, whatever the order', () => {
    const older = view('t1', '2026-02-01T00:00:00Z');
    const newer = view('t1', '2026-03-01T00:00:00Z', 'TASK_STATE_CLOSED');
    for (const list of [
      [older, newer],
      [newer, older],
    ]) {
      const rows = taskRows(list);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.state).toBe('TASK_STATE_CLOSED');
    }
  });

  it('skips nulls, views without a task, and tasks without an ID; keeps times as UTC ISO with ms', () => {
    const rows = taskRows([
      null,
      undefined,
      {} as TaskView,
      { task: {} } as TaskView,
      view('t2', '2026-02-01T01:00:00+01:00'),
    ]);
    expect(rows.map((r) => [r.id, r.updatedAt])).toEqual([['t2', '2026-02-01T00:00:00.000Z']]);
    expect(taskRows(null)).toEqual([]);
  });
});

describe('the JSON kept of a task', () => {
  it('is as sent: the $kind the checks add is cut, the same text inside a string is kept', () => {
    const task = {
      id: 't1',
      displayName: 'has ,"$kind":"x"} inside',
      type: { grant: { appId: 'a' }, $kind: 'grant' },
      steps: [{ approval: {}, $kind: 'approval' }],
    };
    const [row] = taskRows([{ task } as unknown as TaskView]);
    expect(JSON.parse(row?.json ?? '{}')).toEqual({
      id: 't1',
      displayName: 'has ,"$kind":"x"} inside',
      type: { grant: { appId: 'a' } },
      steps: [{ approval: {} }],
    });
  });
});

describe('expandedRows', () => {
  it('keeps each object once by @type and ID, and skips what has neither', () => {
    const app = { '@type': 'type.googleapis.com/c1.api.app.v1.App', id: 'a1', displayName: 'Okta' };
    const rows = expandedRows([
      app,
      { ...app, displayName: 'Okta 2' },
      null,
      { id: 'x' },
      { '@type': 't' },
      5,
    ]);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]?.json ?? '{}').displayName).toBe('Okta 2');
  });
});

describe('copyTime', () => {
  it('keeps a time in the copy form, normalises others to UTC with ms, and drops what the form cannot hold', () => {
    expect(copyTime('2026-03-04T05:06:07.089Z')).toBe('2026-03-04T05:06:07.089Z');
    expect(copyTime('2026-03-04T06:06:07+01:00')).toBe('2026-03-04T05:06:07.000Z');
    expect(copyTime('2026-03-04T05:06:07.1234567Z')).toBe('2026-03-04T05:06:07.123Z');
    // A day its month does not have is normalised as Date.parse reads it, never kept (PostgreSQL refuses it).
    expect(copyTime('2026-02-30T00:00:00.000Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(copyTime('2028-02-29T00:00:00.000Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(copyTime('2026-04-31T00:00:00.000Z')).toBe('2026-05-01T00:00:00.000Z');
    for (const unstorable of [
      '0000-01-01T00:00:00.000Z',
      '0000-01-01T00:00:00Z',
      '+010000-01-01T00:00:00Z',
      '-000001-01-01T00:00:00Z',
    ]) {
      expect(copyTime(unstorable)).toBeUndefined();
    }
    for (const notATime of ['', 'yesterday', 42, null, undefined]) expect(copyTime(notATime)).toBeUndefined();
  });
});
