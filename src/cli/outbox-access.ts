/**
 * How `idgov outbox` reaches an outbox: its store (a SQLite file that must exist, or a PostgreSQL
 * table), opened for one command and closed after, the listeners asked about, and the lines written.
 *
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { createLogger } from '../core/logger.ts';
import { maskedUrl, shownUrl } from '../internal/url.ts';
import type { OutboxStore } from '../outbox/store.ts';
import { StoreClock } from '../outbox/store-clock.ts';
import { nodeSqlite } from '../stores/node-sqlite.ts';
import { isReadOnlyPlace } from '../stores/sqlite-errors.ts';
import { type CommandTelemetry, startTelemetry } from './telemetry.ts';
import { stdoutReaderGone, UsageError } from './usage.ts';

/** Where the outbox is: a SQLite file, or a PostgreSQL database (and table). */
export interface OutboxTarget {
  readonly db?: string | undefined;
  readonly postgres?: string | undefined;
  readonly table?: string | undefined;
}

/** A store the tool opens: one of the SDK's, which purges events of every finished state. */
export type ToolStore = OutboxStore & Required<Pick<OutboxStore, 'purgeFinished'>>;

/**
 * The time the tool judges leases and windows by: the outbox's default clock, read now (and again
 * by `settle()` a minute on), so that a retry from a machine whose clock is off frees no live lease.
 */
export async function clockOf(store: OutboxStore): Promise<StoreClock> {
  const clock = new StoreClock(store, createLogger());
  await clock.settle();
  return clock;
}

/** The outbox's store; a SQLite file must exist (an operator's typo must not create an empty outbox). */
async function openStore(target: OutboxTarget): Promise<ToolStore> {
  if (target.postgres !== undefined) {
    const { PostgresOutboxStore } = await import('../outbox/postgres-store.ts');
    return new PostgresOutboxStore({ connectionString: target.postgres, table: target.table });
  }
  const path = target.db ?? '';
  if (!existsSync(path))
    throw new UsageError(`--db ${path}: no such file (an outbox's SQLite file is made by the outbox).`);
  if (statSync(path).isDirectory())
    throw new UsageError(`--db ${path} is a directory: name the outbox's SQLite file in it.`);
  // Another SQLite file must not become an outbox (the store makes its table when it opens).
  const { DatabaseSync } = nodeSqlite('idgov outbox');
  let probe: InstanceType<typeof DatabaseSync> | undefined;
  try {
    probe = new DatabaseSync(path, { readOnly: true });
    const outbox = probe
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idgov_webhook_outbox'")
      .get();
    if (!outbox)
      throw new UsageError(`--db ${path} holds no outbox (no idgov_webhook_outbox table): check the path.`);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (isReadOnlyPlace(error)) {
      throw new UsageError(
        `--db ${path} cannot be opened from here (${(error as Error).message}): an outbox's file is written beside (its -wal and -shm files) even to read it. Run idgov as the user that runs the outbox, or give this one write access to the file and its directory.`,
      );
    }
    throw new UsageError(
      `--db ${path} is not a SQLite file, or is damaged (${(error as Error).message}): check the path.`,
    );
  } finally {
    probe?.close();
  }
  const { SqliteOutboxStore } = await import('../outbox/sqlite-store.ts');
  return new SqliteOutboxStore({ path });
}

/** A listener URL as the tool shows it ({@link maskedUrl}: `?code=***`). */
export function shownListener(url: string): string {
  return maskedUrl(url) || '(not a URL)';
}

/**
 * The listeners asked about: `--listener`, else every listener the store has events for. A listener
 * given as the tool shows it (its query's values, or its whole query, left out) is the one listener
 * shown so; one the store has no events for is said on stderr, since a command on it then finds
 * nothing, as are listeners a URL without a query leaves out that differ from it by a query only.
 */
export async function listenersOf(store: OutboxStore, listener: string | undefined): Promise<string[]> {
  if (listener !== undefined) {
    const known = (await store.listeners?.()) ?? [listener];
    const alike = known.filter((url) => url !== listener && shownUrl(url) === shownUrl(listener));
    if (known.includes(listener)) {
      if (alike.length > 0 && listener === shownUrl(listener))
        process.stderr.write(
          `idgov: --listener ${listener} leaves out ${alike.length} listener(s) with a query (${alike.map(shownListener).join(', ')}): name them as idgov outbox status shows them.\n`,
        );
      return [listener];
    }
    const shown = known.filter(
      (url) =>
        shownListener(url) === listener || (listener === shownUrl(listener) && shownUrl(url) === listener),
    );
    if (shown.length > 1) {
      throw new UsageError(
        `--listener ${shownListener(listener)} is ${shown.length} listeners told apart by their queries (${[...new Set(shown.map(shownListener))].join(', ')}): give the whole URL, or one as idgov outbox status shows it.`,
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
 * `ended` is told the exit code, or `failing` the error, before the store and telemetry are let go
 * (see stoppedBySignals).
 */
export async function withStore(
  target: OutboxTarget,
  command: string,
  work: (store: ToolStore, telemetry: CommandTelemetry | undefined) => Promise<number>,
  ended: (code: number) => number = (code) => code,
  failing: <E>(error: E) => E = (error) => error,
): Promise<number> {
  const telemetry = await startTelemetry((message) => process.stderr.write(`idgov: ${message}\n`));
  const span = telemetry?.tracer.startSpan(`idgov.outbox.${command}`);
  try {
    const store = await openStore(target);
    try {
      const code = await work(store, telemetry);
      span?.setAttribute('idgov.exit_code', code);
      return ended(code);
    } catch (error) {
      throw failing(error);
    } finally {
      await store.close();
    }
  } catch (error) {
    span?.recordException(error as Error);
    throw failing(error);
  } finally {
    span?.end();
    await telemetry?.shutdown();
  }
}

/** A line on stdout; none once its reader went under a command that finishes without one. */
export const write = (line: string): void => {
  if (!stdoutReaderGone()) process.stdout.write(`${line}\n`);
};
