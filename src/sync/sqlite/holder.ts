/**
 * Which tenant and filter a SQLite task copy holds, and which sync holds it now: one at a time,
 * so that two processes never page into one file.
 *
 * @module
 */

import { hostname } from 'node:os';
import { ConfigurationError } from '../../core/errors/errors.ts';
import { alive, goneFromThisMachine, runningHere, thisProcess } from '../../stores/local-process.ts';
import type { SqliteFile } from '../../stores/sqlite-file.ts';
import { sameFilter } from '../filter-key.ts';
import type { CopyIdentity } from '../store.ts';
import { SQLITE_SYNC_INDEXES, SQLITE_SYNC_MIGRATIONS, SYNC_SCHEMA_VERSION } from './schema.ts';

interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  /** Which store object of the process holds it: two in one process are two holders. */
  readonly holder: string;
  /** When its holder last said it still holds it (Unix ms); copies of older versions have none. */
  readonly seen?: number;
  /** The process as `thisProcess()` names it (with its start, PID namespace and boot); older versions have none. */
  readonly process?: string;
}

/**
 * A holder says it still holds the copy this often, and loses it to another once this long passed
 * without a word: a sync killed in a container leaves a process ID no other container can check.
 */
export const OWNER_HEARTBEAT_MS = 10_000;
export const OWNER_STALE_MS = 30_000;

function meta(file: SqliteFile, key: string): string | undefined {
  const row = file.sql('SELECT value FROM idgov_sync_meta WHERE key = ?').get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

function setMeta(file: SqliteFile, key: string, value: string): void {
  file
    .sql(
      'INSERT INTO idgov_sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
    .run(key, value);
}

/**
 * Takes the copy for `holder` (a store object), inside the caller's write: checks the schema
 * version (migrating an older copy), that the copy is of `identity`'s tenant and filter, and that
 * no other live sync holds it.
 */
export function takeCopy(file: SqliteFile, identity: CopyIdentity, holder: string): void {
  const version = Number(meta(file, 'schema_version') ?? SYNC_SCHEMA_VERSION);
  if (version > SYNC_SCHEMA_VERSION) {
    throw new ConfigurationError(
      `${file.path} holds a task copy of schema version ${version}, newer than this SDK's ${SYNC_SCHEMA_VERSION}: upgrade @idgov/sdk.`,
    );
  }
  const baseUrl = meta(file, 'base_url');
  const filter = meta(file, 'filter');
  // A copy nothing was written to (its first run failed before it began: a typo in the base URL,
  // say) is anybody's; once a run began, its tenant and filter are the copy's. (One process holds a
  // SQLite copy at a time, so two cannot take an empty one for two tenants at once.)
  const begun =
    file
      .sql('SELECT EXISTS (SELECT 1 FROM idgov_sync_runs) OR EXISTS (SELECT 1 FROM idgov_tasks) AS begun')
      .get()?.begun === 1;
  if (
    begun &&
    baseUrl !== undefined &&
    (baseUrl !== identity.baseUrl || !sameFilter(filter, identity.filter))
  ) {
    throw new ConfigurationError(
      `${file.path} holds a copy of ${baseUrl} with the filter ${filter}; this sync is of ${identity.baseUrl} with the filter ${identity.filter}. Use another file for it, or delete this one to start over (its change feed then starts again at seq 1: its readers must start again from 0).`,
    );
  }
  const held = copyHolder(file);
  if (held && held.holder !== holder && !held.gone) {
    throw copyHeld(
      `Another sync (process ${held.pid} on ${held.host}, last seen ${Math.max(0, Math.round((Date.now() - held.seen) / 1000))} s ago) is running on ${file.path}: one process syncs a SQLite copy at a time. Wait for it, or stop it; one killed loses its hold ${OWNER_STALE_MS / 1000} s after it was last seen.`,
    );
  }
  for (let from = version; from < SYNC_SCHEMA_VERSION; from++) file.exec(SQLITE_SYNC_MIGRATIONS[from] ?? '');
  file.exec(SQLITE_SYNC_INDEXES);
  setMeta(file, 'schema_version', String(SYNC_SCHEMA_VERSION));
  setMeta(file, 'base_url', identity.baseUrl);
  setMeta(file, 'filter', identity.filter);
  const me: Owner = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    holder,
    seen: Date.now(),
    process: thisProcess(),
  };
  setMeta(file, 'owner', JSON.stringify(me));
}

const COPY_HELD = 'copy held by another sync';

/**
 * A `ConfigurationError` saying that another sync holds the copy, or took it over from this one:
 * a run to make later, not a setup to fix. Told apart by {@link isCopyHeld}, also once it crossed
 * from the store's thread (its own fields cross with it).
 */
function copyHeld(message: string): ConfigurationError {
  return Object.assign(new ConfigurationError(message), { reason: COPY_HELD });
}

/** Whether `error` says that another sync holds the SQLite copy ({@link copyHeld}). */
export const isCopyHeld = (error: unknown): boolean =>
  error instanceof ConfigurationError && (error as { reason?: unknown }).reason === COPY_HELD;

/**
 * The sync that holds the copy, if one does: when it last said so (`seen`, Unix ms), and whether it
 * is `gone`: ended on this machine, or silent past {@link OWNER_STALE_MS}. A holder of an older
 * version says nothing while it runs: only its process can tell.
 */
export function copyHolder(
  file: SqliteFile,
): (Owner & { readonly seen: number; readonly gone: boolean }) | undefined {
  const held = ownerOf(meta(file, 'owner'));
  if (!held) return undefined;
  const seen = held.seen ?? Date.parse(held.since);
  // A PID means one process only within one PID namespace and boot: two containers of one
  // hostname may share the file. An owner of an older version, or of a system without /proc
  // (macOS, Windows), names neither: its host and PID tell.
  const dead = held.process?.includes('#')
    ? goneFromThisMachine(held.process)
    : held.host === hostname() && !alive(held.pid);
  // Silent past OWNER_STALE_MS by the wall clock, unless its process, another one, is seen running
  // here: a clock stepped forward (an NTP step, a VM resumed) makes a live holder look silent. This
  // process's own silent holder (a store whose thread died, one never closed) loses it as before.
  const elsewhere = held.process !== undefined && held.process !== thisProcess() && runningHere(held.process);
  const silent = !(Date.now() - seen <= OWNER_STALE_MS) && !elsewhere;
  const gone = held.seen === undefined ? dead : dead || silent;
  return { ...held, seen, gone };
}

/** The owner a row's value says, if it says one: a value no sync wrote (damaged, edited by hand) holds nothing. */
function ownerOf(value: string | undefined): Owner | undefined {
  let owner: Partial<Owner>;
  try {
    owner = JSON.parse(value ?? 'null') ?? {};
  } catch {
    return undefined;
  }
  const { pid, host, holder, since, seen, process: named } = owner;
  const known =
    Number.isInteger(pid) &&
    typeof host === 'string' &&
    typeof holder === 'string' &&
    (seen === undefined ? Number.isFinite(Date.parse(String(since))) : Number.isFinite(seen)) &&
    (named === undefined || typeof named === 'string');
  return known ? (owner as Owner) : undefined;
}

/** Lets the copy go, if `holder` holds it. */
export function releaseCopy(file: SqliteFile, holder: string): void {
  file
    .sql("DELETE FROM idgov_sync_meta WHERE key = 'owner' AND json_extract(value, '$.holder') = ?")
    .run(holder);
}

/** Says that `holder` still holds the copy, if it does. */
export function stillHeld(file: SqliteFile, holder: string): void {
  file
    .sql(
      "UPDATE idgov_sync_meta SET value = json_set(value, '$.seen', ?) WHERE key = 'owner' AND json_extract(value, '$.holder') = ?",
    )
    .run(Date.now(), holder);
}

/**
 * Throws unless `holder` still holds the copy: one paused past {@link OWNER_STALE_MS} (a stopped
 * process, a machine asleep) may have been taken over, and must not write beside its successor.
 */
export function assertHeld(file: SqliteFile, holder: string): void {
  const held = file
    .sql("SELECT 1 FROM idgov_sync_meta WHERE key = 'owner' AND json_extract(value, '$.holder') = ?")
    .get(holder);
  if (held !== undefined) return;
  throw copyHeld(
    `This sync no longer holds ${file.path}: it was not heard from for ${OWNER_STALE_MS / 1000} s (the process paused, or its machine slept), and another process took the copy over. Nothing more was written; let the other one finish.`,
  );
}
