import type { Meter } from '@opentelemetry/api';
import type { TaskSync } from '../sync/run/task-sync.ts';

/**
 * Records a task sync's progress: pages and tasks committed, windows done, and the share of the
 * creation-time range covered (a gauge of the run under way). Returns the function that stops it.
 */
export function countSync(sync: TaskSync, meter: Meter): () => void {
  const pages = meter.createCounter('idgov.sync.pages', {
    description: 'Pages a task sync committed.',
    unit: '{page}',
  });
  const tasks = meter.createCounter('idgov.sync.tasks', {
    description: 'Tasks a task sync committed, by what they were to the copy.',
    unit: '{task}',
  });
  const windows = meter.createCounter('idgov.sync.windows', {
    description: 'Windows of creation time a task sync finished.',
    unit: '{window}',
  });
  const covered = meter.createObservableGauge('idgov.sync.covered', {
    description: "Share of the run's creation-time range covered so far.",
    unit: '1',
  });
  let latest: { pages: number; covered: number } = { pages: 0, covered: 0 };
  let stopped = false;
  const observe = (result: { observe(value: number): void }) => {
    result.observe(latest.covered);
    // Stopped: this was the last collection to report it (a process's final flush).
    if (stopped) queueMicrotask(() => covered.removeCallback(observe));
  };
  covered.addCallback(observe);
  const offs = [
    sync.hooks.on('progress', (progress) => {
      pages.add(Math.max(0, progress.pages - latest.pages));
      latest = { pages: progress.pages, covered: progress.covered };
    }),
    sync.hooks.on('window', (event) => {
      if (event.event === 'done') windows.add(1);
    }),
    sync.hooks.on('runEnd', (summary) => {
      tasks.add(summary.tasksNew, { 'idgov.sync.change': 'new' });
      tasks.add(summary.tasksChanged, { 'idgov.sync.change': 'changed' });
      tasks.add(summary.tasksDeleted, { 'idgov.sync.change': 'deleted' });
      latest = { pages: 0, covered: summary.complete ? 1 : latest.covered };
    }),
  ];
  // The gauge reports its last value once more after a stop: stopped before the final flush (as a
  // process ends: stop, then shut the provider down), it would otherwise be lost.
  return () => {
    for (const off of offs) off();
    stopped = true;
  };
}
