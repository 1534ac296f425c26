/**
 * `idgov outbox`: an outbox's events from the shell, on its SQLite file or PostgreSQL table: where
 * they stand (`status`), which they are (`list`), a dead one sent again (`retry`), old deliveries
 * deleted (`purge`). What `WebhookOutbox` does from code, for the operator at 3 a.m.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { isoTime } from '../internal/time.ts';
import { shownUrl } from '../internal/url.ts';
import {
  FINISHED_STATES,
  type FinishedState,
  type OutboxEvent,
  type OutboxState,
  type OutboxStore,
} from '../outbox/store.ts';
import { nodeSqlite } from '../stores/node-sqlite.ts';
import { printable } from './options.ts';
import { type CommandTelemetry, startTelemetry } from './telemetry.ts';
import { EXIT, UsageError } from './usage.ts';

/** Where the outbox is: a SQLite file, or a PostgreSQL database (and table). */
export interface OutboxTarget {
  readonly db?: string | undefined;
  readonly postgres?: string | undefined;
  readonly table?: string | undefined;
}

const STATES: readonly OutboxState[] = ['pending', 'delivered', 'dead', 'expired'];

/** A store the tool opens: one of the SDK's, which purges events of every finished state. */
type ToolStore = OutboxStore & Required<Pick<OutboxStore, 'purgeFinished'>>;

/** The outbox's store; a SQLite file must exist (an operator's typo must not create an empty outbox). */
async function openStore(target: OutboxTarget): Promise<ToolStore> {
  if (target.postgres !== undefined) {
    const { PostgresOutboxStore } = await import('../outbox/postgres-store.ts');
    return new PostgresOutboxStore({ connectionString: target.postgres, table: target.table });
  }
  const path = target.db ?? '';
  if (!existsSync(path))
    throw new UsageError(`--db ${path}: no such file (an outbox's SQLite file is made by the outbox).`);
  // Another SQLite file must not become an outbox (the store makes its table when it opens).
  const { DatabaseSync } = nodeSqlite('idgov outbox');
  const probe = new DatabaseSync(path, { readOnly: true });
  try {
    const outbox = probe
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idgov_webhook_outbox'")
      .get();
    if (!outbox)
      throw new UsageError(`--db ${path} holds no outbox (no idgov_webhook_outbox table): check the path.`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `--db ${path} is not a SQLite file, or is damaged (${(error as Error).message}): check the path.`,
    );
  } finally {
    probe.close();
  }
  const { SqliteOutboxStore } = await import('../outbox/sqlite-store.ts');
  return new SqliteOutboxStore({ path });
}

/** A listener URL as the tool shows it (no query, fragment or credentials, where a key may be). */
export function shownListener(url: string): string {
  return shownUrl(url) || '(not a URL)';
}

/**
 * The listeners asked about: `--listener`, else every listener the store has events for. A listener
 * given as the tool shows it (its query left out) is the one listener shown so; one the store has no
 * events for is said on stderr, since a command on it then finds nothing.
 */
async function listenersOf(store: OutboxStore, listener: string | undefined): Promise<string[]> {
  if (listener !== undefined) {
    const known = (await store.listeners?.()) ?? [listener];
    if (known.includes(listener)) return [listener];
    const shown = known.filter((url) => shownListener(url) === shownListener(listener));
    if (shown.length > 1) {
      throw new UsageError(
        `--listener ${shownListener(listener)} is ${shown.length} listeners told apart by their queries: give the whole URL.`,
      );
    }
    if (shown.length === 1) return shown;
    process.stderr.write(
      `idgov: no events for the listener ${shownListener(listener)} (idgov outbox status lists those with events).\n`,
    );
    return [listener];
  }
  if (!store.listeners)
    throw new UsageError('this store cannot list its listeners: name one with --listener <url>.');
  return store.listeners();
}

/**
 * Runs `work` on the outbox's store, closed after; with the OTEL_* environment naming a collector,
 * as a span `idgov.outbox.<command>` (its exit code an attribute), exported before the command ends.
 */
async function withStore(
  target: OutboxTarget,
  command: string,
  work: (store: ToolStore, telemetry: CommandTelemetry | undefined) => Promise<number>,
): Promise<number> {
  const telemetry = await startTelemetry((message) => process.stderr.write(`idgov: ${message}\n`));
  const span = telemetry?.tracer.startSpan(`idgov.outbox.${command}`);
  try {
    const store = await openStore(target);
    try {
      const code = await work(store, telemetry);
      span?.setAttribute('idgov.exit_code', code);
      return code;
    } finally {
      await store.close();
    }
  } catch (error) {
    span?.recordException(error as Error);
    throw error;
  } finally {
    span?.end();
    await telemetry?.shutdown();
  }
}

const write = (line: string) => process.stdout.write(`${line}\n`);
const when = (ms: number | undefined) => (ms === undefined ? undefined : isoTime(ms));

/** `idgov outbox status`: counts by state a listener, the oldest pending event's age, the next due time, the leases held. */
export function statusCommand(
  options: OutboxTarget & { listener?: string; json?: boolean },
): Promise<number> {
  return withStore(options, 'status', async (store, telemetry) => {
    const now = Date.now();
    const backlog = telemetry?.meter.createGauge('idgov.outbox.backlog', {
      description: 'Outbox events in each state.',
      unit: '{event}',
    });
    const listeners = await listenersOf(store, options.listener);
    if (listeners.length === 0 && !options.json) write('No events: the outbox is empty.');
    for (const listener of listeners) {
      const counts = await store.counts(listener);
      for (const state of STATES) {
        backlog?.record(counts[state], {
          'idgov.webhook.listener': shownListener(listener),
          'idgov.outbox.state': state,
        });
      }
      const pending = await store.list(listener, 'pending', 1_000);
      const oldest = pending[0];
      const nextDue =
        pending.length > 0 ? Math.min(...pending.map((event) => event.nextAttemptAt)) : undefined;
      const leases = (await store.leases?.(listener, now, 100)) ?? [];
      const status = {
        listener: shownListener(listener),
        counts,
        oldestPendingAgeSeconds: oldest ? Math.round((now - oldest.enqueuedAt) / 1000) : null,
        nextDueAt: when(nextDue) ?? null,
        leases: leases.map((lease) => ({
          eventId: lease.eventId,
          holder: lease.holder,
          until: isoTime(lease.until),
        })),
      };
      if (options.json) {
        write(JSON.stringify(status));
        continue;
      }
      write(`${status.listener}`);
      write(`  ${STATES.map((state) => `${state} ${counts[state]}`).join(', ')}`);
      if (oldest)
        write(
          `  oldest pending: enqueued ${status.oldestPendingAgeSeconds} s ago; next due ${status.nextDueAt}`,
        );
      for (const lease of status.leases)
        write(`  leased: ${lease.eventId} by ${lease.holder} until ${lease.until}`);
    }
    return EXIT.done;
  });
}

/** An event as `list` shows it: its facts and last answer; its body only when asked. */
function shownEvent(event: OutboxEvent, body: boolean) {
  return {
    eventId: event.eventId,
    listener: shownListener(event.listener),
    state: event.state,
    attempts: event.attempts,
    enqueuedAt: isoTime(event.enqueuedAt),
    nextAttemptAt: event.state === 'pending' ? isoTime(event.nextAttemptAt) : null,
    lastAttemptAt: when(event.lastAttemptAt) ?? null,
    lastAnswer: event.lastAnswer ?? null,
    finishedAt: when(event.finishedAt) ?? null,
    ...(body ? { body: event.body } : {}),
  };
}

/** `idgov outbox list`: the events in a state, oldest first. */
export function listCommand(
  options: OutboxTarget & {
    state: OutboxState;
    listener?: string;
    limit: number;
    json?: boolean;
    body?: boolean;
  },
): Promise<number> {
  return withStore(options, 'list', async (store) => {
    let left = options.limit;
    for (const listener of await listenersOf(store, options.listener)) {
      if (left <= 0) break;
      const events = await store.list(listener, options.state, left);
      left -= events.length;
      for (const event of events) {
        const shown = shownEvent(event, options.body === true);
        if (options.json) write(JSON.stringify(shown));
        else {
          const answer = printable(String(event.lastAnswer?.status ?? event.lastAnswer?.error ?? '-'));
          write(
            `${shown.eventId}  ${shown.state}  ${shown.attempts} attempt(s)  last: ${answer}  ${shown.listener}`,
          );
          if (options.body) write(`  ${printable(event.body)}`);
        }
      }
    }
    return EXIT.done;
  });
}

/** Why `retry` could not send `event` again. */
function whyNot(event: OutboxEvent | undefined, now: number): string {
  if (!event) return 'no such event';
  if (event.state === 'delivered' || event.state === 'expired') return `it is ${event.state}`;
  if (now >= event.expiresAt)
    return 'its window has ended (the listener would no longer take it as the same event)';
  return 'an attempt is in flight (a live lease holds it)';
}

/**
 * `idgov outbox retry`: the events named (or every dead one) back to pending, due now. Exit 1 if
 * one could not be, except a dead event past its window under `--all-dead`: it can never be sent
 * again, so it is counted apart (purge deletes it), or every later `--all-dead` would fail.
 */
export function retryCommand(
  options: OutboxTarget & { ids: readonly string[]; allDead?: boolean; listener?: string; json?: boolean },
): Promise<number> {
  return withStore(options, 'retry', async (store) => {
    let tried = 0;
    let refused = 0;
    let pastWindow = 0;
    const retry = async (eventId: string, named: boolean) => {
      const now = Date.now();
      const retried = await store.retry(eventId, now);
      const event = retried ? undefined : await store.get(eventId);
      const why = retried ? undefined : whyNot(event, now);
      const ended = !retried && !named && event?.state === 'dead' && now >= event.expiresAt;
      tried += 1;
      if (ended) pastWindow += 1;
      else if (!retried) refused += 1;
      if (options.json) write(JSON.stringify({ eventId, retried, ...(why ? { why } : {}) }));
      else write(retried ? `${eventId}: pending, due now` : `${eventId}: not retried: ${why}`);
    };
    for (const eventId of options.ids) await retry(eventId, true);
    if (options.allDead) {
      // A batch at a time: each retried event leaves `dead`, so the next batch is the next events.
      // Each is tried once: one that cannot be retried (its window ended) stays dead, and one a
      // running drain buries again at once (its listener refuses it) must not be retried for ever.
      const handled = new Set<string>();
      for (const listener of await listenersOf(store, options.listener)) {
        for (;;) {
          const batch = (await store.list(listener, 'dead', 500 + handled.size)).filter(
            (event) => !handled.has(event.eventId),
          );
          if (batch.length === 0) break;
          for (const event of batch) {
            handled.add(event.eventId);
            await retry(event.eventId, false);
          }
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
    return refused > 0 ? EXIT.failed : EXIT.done;
  });
}

/** The finished states `idgov outbox purge` deletes, each with the time before which it does. */
export type PurgeBefore = Partial<Record<FinishedState, number>>;

/** `idgov outbox purge`: deletes the events of each state given that finished before its time. */
export function purgeCommand(
  options: OutboxTarget & { before: PurgeBefore; listener?: string; json?: boolean },
): Promise<number> {
  return withStore(options, 'purge', async (store) => {
    const purged: PurgeBefore = {};
    const listeners = await listenersOf(store, options.listener);
    for (const state of FINISHED_STATES) {
      const before = options.before[state];
      if (before === undefined) continue;
      purged[state] = 0;
      for (const listener of listeners) {
        purged[state] += await store.purgeFinished(listener, state, before);
      }
      if (!options.json) {
        write(`${purged[state]} ${state} event(s) finished before ${isoTime(before)} deleted.`);
      }
    }
    if (options.json) {
      const total = Object.values(purged).reduce((sum, n) => sum + n, 0);
      const times = Object.entries(options.before).map(([state, at]) => [`${state}Before`, isoTime(at)]);
      write(JSON.stringify({ purged: total, ...purged, ...Object.fromEntries(times) }));
    }
    return EXIT.done;
  });
}
