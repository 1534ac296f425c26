/**
 * `idgov outbox retry` and `purge`: a dead event sent again, finished ones deleted. What
 * `WebhookOutbox.retry` and `purgeFinished` do from code.
 *
 * @module
 */
import { isoTime } from '../internal/time.ts';
import { wait } from '../internal/wait.ts';
import { retryRefusal } from '../outbox/retry-refusal.ts';
import { FINISHED_STATES, type FinishedState, type OutboxEvent, type OutboxStore } from '../outbox/store.ts';
import { clockOf, listenersOf, type OutboxTarget, withStore, write } from './outbox-access.ts';
import { EXIT, finishWithoutReader, leftUnfinished, stoppedBySignals } from './usage.ts';

// Dead events listed a query at a time (by `retry --all-dead`, and by `purge --dead-before` to check).
const RETRY_BATCH = 500;

/**
 * `idgov outbox retry`: the events named (or every dead one) back to pending, due now. Exit 1 if
 * one could not be, except a dead event past its window under `--all-dead`: it can never be sent
 * again, so it is counted apart (purge deletes it), or every later `--all-dead` would fail.
 */
export function retryCommand(
  options: OutboxTarget & { ids: readonly string[]; allDead?: boolean; listener?: string; json?: boolean },
): Promise<number> {
  finishWithoutReader();
  return stoppedBySignals(
    (stop, signalled, ended, failing) =>
      withStore(
        options,
        'retry',
        async (store) => {
          let tried = 0;
          let refused = 0;
          let pastWindow = 0;
          const clock = await clockOf(store);
          const retry = async (eventId: string, named: boolean) => {
            await clock.settle();
            const now = clock.now();
            const retried = await store.retry(eventId, now);
            const event = retried ? undefined : await store.get(eventId);
            const why = retried ? undefined : `it ${retryRefusal(event, now)}`;
            const ended = !retried && !named && event?.state === 'dead' && now >= event.expiresAt;
            tried += 1;
            if (ended) pastWindow += 1;
            else if (!retried) refused += 1;
            if (options.json) {
              write(
                JSON.stringify({
                  eventId,
                  retried,
                  ...(why ? { why } : {}),
                  ...(ended ? { pastWindow: true } : {}),
                }),
              );
            } else write(retried ? `${eventId}: pending, due now` : `${eventId}: not retried: ${why}`);
          };
          for (const eventId of options.ids) {
            if (stop.aborted) break;
            await retry(eventId, true);
          }
          if (options.allDead && !stop.aborted) {
            // A batch at a time, each after the last one's final event: each event is tried once. One that
            // cannot be retried (its window ended) stays dead, and one a running drain buries again at once
            // (its listener refuses it) must not be retried for ever.
            const handled = new Set<string>(options.ids);
            for await (const batch of deadBatches(store, await listenersOf(store, options.listener))) {
              // A store that answers at once (SQLite) would otherwise hear no signal until the end.
              await wait(0);
              if (stop.aborted) break;
              for (const event of batch) {
                if (stop.aborted) break;
                if (handled.has(event.eventId)) continue;
                handled.add(event.eventId);
                await retry(event.eventId, false);
              }
            }
          }
          if (!options.json) {
            write(`${tried - refused - pastWindow} of ${tried} event(s) retried.`);
            if (pastWindow > 0) {
              write(
                `${pastWindow} dead event(s) past their window can never be sent again: enqueue new events if their automations should run, and delete these with idgov outbox purge --dead-before DATE.`,
              );
            }
          }
          if (stop.aborted) return stopped('retry', signalled());
          return refused > 0 ? EXIT.failed : EXIT.done;
        },
        ended,
        failing,
      ),
    (signal) => unfinished('retry', signal),
  );
}

/** Said when SIGINT or SIGTERM stopped a command between two of its writes: exit 130. */
function stopped(command: string, signal: NodeJS.Signals | undefined): number {
  process.stderr.write(
    `idgov outbox ${command}: stopped by ${signal ?? 'a signal'}; what is said above is done: run the same command again to go on.\n`,
  );
  return EXIT.interrupted;
}

/** Said when a stopped command's write has not finished in time: exit 130. */
function unfinished(command: string, signal: NodeJS.Signals): number {
  process.stderr.write(
    `idgov outbox ${command}: ${leftUnfinished(signal)}; run the same command again to go on.\n`,
  );
  return EXIT.interrupted;
}

/** The finished states `idgov outbox purge` deletes, each with the time before which it does. */
export type PurgeBefore = Partial<Record<FinishedState, number>>;

/**
 * `idgov outbox purge`: deletes the events of each state given that finished before its time. Dead
 * events that could still be retried (within their window) only with `includeRetryable`: without
 * it, their presence refuses the purge before anything is deleted.
 */
export function purgeCommand(
  options: OutboxTarget & {
    before: PurgeBefore;
    includeRetryable?: boolean;
    listener?: string;
    json?: boolean;
  },
): Promise<number> {
  finishWithoutReader();
  return stoppedBySignals(
    (stop, signalled, ended, failing) =>
      withStore(
        options,
        'purge',
        async (store) => {
          const purged: PurgeBefore = {};
          const listeners = await listenersOf(store, options.listener);
          const deadBefore = options.before.dead;
          // Without --include-retryable, a dead event still in its window is kept: one that died
          // before the date stops the purge first, and the delete keeps any that died since.
          const windowEndedBy = options.includeRetryable ? undefined : (await clockOf(store)).now();
          if (deadBefore !== undefined && windowEndedBy !== undefined) {
            const retryable = await stillRetryable(store, listeners, deadBefore, windowEndedBy, stop);
            if (stop.aborted) return stopped('purge', signalled());
            if (retryable > 0) {
              process.stderr.write(
                `idgov: ${retryable} dead event(s) that died before ${isoTime(deadBefore)} could still be retried (they are within their window): nothing was deleted. Retry them (idgov outbox retry --all-dead, on the same outbox), or add --include-retryable to delete them too.\n`,
              );
              return EXIT.usage;
            }
          }
          for (const state of FINISHED_STATES) {
            const before = options.before[state];
            if (before === undefined) continue;
            purged[state] = 0;
            for (const listener of listeners) {
              purged[state] += await store.purgeFinished(listener, state, before, {
                signal: stop,
                windowEndedBy: state === 'dead' ? windowEndedBy : undefined,
              });
            }
            if (!options.json) {
              write(`${purged[state]} ${state} event(s) finished before ${isoTime(before)} deleted.`);
            }
          }
          if (options.json) {
            const total = Object.values(purged).reduce((sum, n) => sum + n, 0);
            const times = Object.entries(options.before).map(([state, at]) => [
              `${state}Before`,
              isoTime(at),
            ]);
            write(JSON.stringify({ purged: total, ...purged, ...Object.fromEntries(times) }));
          }
          return stop.aborted ? stopped('purge', signalled()) : EXIT.done;
        },
        ended,
        failing,
      ),
    (signal) => unfinished('purge', signal),
  );
}

/**
 * How many dead events of `listeners` that died before `before` are still within their window at
 * `now`; counting stops where `stop` aborts.
 */
async function stillRetryable(
  store: OutboxStore,
  listeners: readonly string[],
  before: number,
  now: number,
  stop: AbortSignal,
): Promise<number> {
  let count = 0;
  for await (const batch of deadBatches(store, listeners)) {
    count += batch.filter((event) => (event.finishedAt ?? 0) < before && now < event.expiresAt).length;
    // A store that answers at once (SQLite) would otherwise hear no signal until the end.
    await wait(0);
    if (stop.aborted) break;
  }
  return count;
}

/** The dead events of `listeners`, a batch at a time, each batch after the last one's final event. */
async function* deadBatches(store: OutboxStore, listeners: readonly string[]): AsyncGenerator<OutboxEvent[]> {
  for (const listener of listeners) {
    for (let after: string | undefined; ; ) {
      const batch = await store.list(listener, 'dead', RETRY_BATCH, after);
      if (batch.length === 0) break;
      yield batch;
      after = batch.at(-1)?.eventId;
    }
  }
}
