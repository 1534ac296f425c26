/**
 * `idgov changes`, `idgov changes prune` and `idgov sync --watch`, run as a user runs them (child
 * processes) against the fake tenant on loopback: a long-running sync that SIGTERM ends with exit 0,
 * a follower that prints each change once as the syncs commit it, and retention.
 */

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { thisProcess } from '../../src/stores/local-process.ts';
import { SqliteSyncStore } from '../../src/sync/sqlite/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { all } from '../helpers/change-feed.ts';
import { type Child, startChild, tenantEnv } from '../helpers/child.ts';
import { cliEnv, idgov } from '../helpers/idgov.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { silentProxy } from '../helpers/silent-proxy.ts';

const cli = fileURLToPath(new URL('../../src/cli/idgov.ts', import.meta.url));
const fromSource = fileURLToPath(new URL('../../scripts/from-source.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'idgov-changes-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pg = await postgresForTests();
if (!pg) console.warn(`skipping idgov changes --postgres: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

// Children of a test, killed after it whatever happened: a failed wait must not leave a follower running.
const children: Child[] = [];
afterEach(() => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** `idgov args` in a child process, killed after the test. */
function started(args: readonly string[], env: Record<string, string>): Child {
  const child = startChild('src/cli/idgov.ts', args, env);
  children.push(child);
  return child;
}

/** Resolves once `done()` holds; rejects after `ms`, saying what it waited for. */
async function until(what: string, done: () => boolean, ms = 30_000): Promise<void> {
  for (const end = Date.now() + ms; !done(); ) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The complete lines of NDJSON in `text`, parsed (a line still being written is left for later). */
const lines = (text: string) =>
  text
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('idgov changes and idgov sync --watch', () => {
  const tenant = new FakeTenant({ history: 1_500, seed: 51, latencyMs: 5 });
  let close: () => Promise<void>;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
    env = tenantEnv(tenant, 'warn');
  });
  afterAll(() => close());

  it('sync --watch runs again at its interval, each summary said; a follower prints each change once; SIGTERM and SIGINT end both with 0', async () => {
    const db = join(dir, 'watched.db');
    const watcher = started(['sync', '--db', db, '--watch', '1'], env);
    await until('the first run', () => /Done: full run/.test(watcher.stderr()));
    const follower = started(['changes', '--db', db, '--since', '0', '--follow'], env);
    const closed = tenant.closeTasks(5);
    const created = tenant.createTasks(3);
    await until(
      'a run after the changes',
      () => (watcher.stderr().match(/Done: incremental run: \d+ pages, 3 new/g) ?? []).length > 0,
    );
    expect(watcher.stderr()).toMatch(/Next run at \d{4}-\d{2}-\d{2}T/);
    const reader = new SqliteSyncStore({ path: db, readOnly: true });
    const feed = await all(reader.changeRows());
    await reader.close();
    await until('the follower to print the feed', () => lines(follower.stdout()).length >= feed.length);
    watcher.child.kill('SIGTERM');
    follower.child.kill('SIGINT');
    const [watched, followed] = [await watcher.exited, await follower.exited];
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stderr).toMatch(/Stopped by SIGTERM/);
    expect(followed.code, followed.stderr).toBe(0);
    const printed = lines(followed.stdout);
    // Each change once, in seq order, with the documented fields.
    expect(printed.map((c) => c.seq)).toEqual(feed.map((c) => c.seq));
    expect(Object.keys(printed[0] ?? {})).toEqual([
      'seq',
      'kind',
      'taskId',
      'at',
      'previousState',
      'state',
      'task',
    ]);
    const later = printed.filter((c) => (c.seq as number) > 1_500);
    expect(new Set(later.map((c) => c.taskId))).toEqual(new Set([...closed, ...created].map((t) => t.id)));
    for (const change of later) {
      const want = created.some((t) => t.id === change.taskId) ? 'created' : 'changed';
      expect(change.kind).toBe(want);
      expect((change.task as { id: string }).id).toBe(change.taskId);
    }
  }, 90_000);

  it('sync --watch whose SQLite copy another sync holds at a run says so and runs again at the next, not ended', async () => {
    const db = join(dir, 'held.db');
    const watcher = started(['sync', '--db', db, '--watch', '1'], env);
    await until('the first run', () => /Done: full run/.test(watcher.stderr()));
    // Another sync of this machine takes the copy (or takes it over, if a run began meanwhile).
    const file = new DatabaseSync(db, { timeout: 10_000 }); // the watcher may be writing
    const owner = {
      pid: process.pid,
      host: hostname(),
      holder: 'another-sync',
      since: new Date().toISOString(),
      seen: Date.now(),
      process: thisProcess(),
    };
    file
      .prepare("INSERT OR REPLACE INTO idgov_sync_meta (key, value) VALUES ('owner', ?)")
      .run(JSON.stringify(owner));
    await until('a run that found it held', () =>
      /Run failed: .*(Another sync|no longer holds)/.test(watcher.stderr()),
    );
    expect(watcher.child.exitCode).toBe(null);
    file.prepare("DELETE FROM idgov_sync_meta WHERE key = 'owner' AND value LIKE '%another-sync%'").run();
    file.close();
    const done = (watcher.stderr().match(/Done: /g) ?? []).length;
    await until('a run after it was let go', () => (watcher.stderr().match(/Done: /g) ?? []).length > done);
    watcher.child.kill('SIGTERM');
    const watched = await watcher.exited;
    expect(watched.code, watched.stderr).toBe(0);
  });

  it('sync --watch whose SQLite copy file is deleted under it ends, saying so, rather than fail every run', async () => {
    const db = join(dir, 'deleted.db');
    const watcher = started(['sync', '--db', db, '--watch', '1'], env);
    await until('the first run', () => /Done: full run/.test(watcher.stderr()));
    for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });
    const watched = await watcher.exited;
    expect(watched.code, watched.stderr).toBe(1);
    expect(watched.stderr).toMatch(
      /task copy file .*deleted\.db was deleted or moved .* open the store again/,
    );
    expect(watched.stderr).not.toMatch(/the next run resumes it/);
  });

  it('reads from --since by --kind; prune deletes before a seq; bad input is refused with exit 2, nothing made', async () => {
    const db = join(dir, 'read.db');
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const everything = lines((await idgov(['changes', '--db', db, '--since', '0'], env)).stdout);
    expect(everything.length).toBeGreaterThan(1_000);
    const after = everything[99]?.seq as number;
    const rest = lines((await idgov(['changes', '--db', db, '--since', String(after)], env)).stdout);
    expect(rest.map((c) => c.seq)).toEqual(everything.slice(100).map((c) => c.seq));
    const byKind = await idgov(['changes', '--db', db, '--since', '0', '--kind', 'DELETED'], env);
    const deleted = lines(byKind.stdout);
    expect(deleted.length).toBe(everything.filter((c) => c.kind === 'deleted').length);
    // Where to go on from is the feed read through, past the last deletion: a prune up to there
    // leaves a consumer of deletions nothing to miss.
    const through = everything.at(-1)?.seq as number;
    expect(through).toBeGreaterThan(deleted.at(-1)?.seq as number);
    expect(byKind.stderr).toBe(`idgov changes: read through seq ${through}: go on with --since ${through}\n`);
    // Past the feed's end: the error, and no position beside it.
    const ahead = await idgov(
      ['changes', '--db', db, '--since', String(through + 1_000), '--kind', 'deleted'],
      env,
    );
    expect(ahead.code).toBe(1);
    expect(ahead.stderr).toMatch(/past the end of the change feed/);
    expect(ahead.stderr).not.toMatch(/go on with/);

    const pruned = await idgov(['changes', 'prune', '--db', db, '--before', '101'], env);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toBe('Pruned 100 changes before seq 101.\n');
    const left = lines((await idgov(['changes', '--db', db, '--since', '0'], env)).stdout);
    expect(left.map((c) => c.seq)).toEqual(everything.slice(100).map((c) => c.seq));

    // A reader whose reader does not read (its pipe full) still ends at once on SIGINT: a follower
    // with 0, a read of what is there with 130 (what it printed is not all there was).
    for (const [follow, exit] of [
      [['--follow'], 0],
      [[], 130],
    ] as const) {
      const blocked = spawn(
        process.execPath,
        ['--import', fromSource, cli, 'changes', '--db', db, '--since', '0', ...follow],
        { env: cliEnv(env), stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const ended = new Promise<number | null>((resolve) => blocked.on('exit', (code) => resolve(code)));
      // Its first lines (left unread) fill the pipe: it started, and is blocked writing. A fixed wait
      // from the spawn was too short on a busy machine, where the SIGINT came before its handler.
      await new Promise((resolve) => blocked.stdout?.once('readable', resolve));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      blocked.kill('SIGINT');
      const stoppedAt = Date.now();
      const code = await Promise.race([
        ended,
        new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000)),
      ]);
      if (code === 'still running') blocked.kill('SIGKILL');
      expect(code, follow.join(' ')).toBe(exit);
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    }

    const missing = join(dir, 'typo.db');
    const refused = [
      [['changes', '--db', db], /give --since <seq>: the last seq you handled/],
      [['changes', '--db', db, '--since', '-1'], /--since.*a whole number/],
      [
        ['changes', '--db', db, '--since', '0', '--kind', 'closed'],
        /--kind: no kind "closed"; the kinds are created, changed, deleted, vanished/,
      ],
      [['changes', 'prune', '--db', db], /--before/],
      [
        ['changes', 'prune', '--db', db, '--before', '999999999'],
        /before \(999999999\) is past the end of the change feed/,
      ],
      [['changes', 'prune', '--db', missing, '--before', '5'], /typo\.db does not exist/],
      [['changes', '--db', missing, '--since', '0'], /typo\.db does not exist/],
      [['sync', '--db', db, '--change-feed', 'some'], /--change-feed must be all or after-first-copy/],
      [['sync', '--db', db, '--watch', '0'], /--watch.*a whole number from 1/],
    ] as const;
    for (const [args, message] of refused) {
      const ran = await idgov(args, env);
      expect(ran.code, args.join(' ')).toBe(2);
      expect(ran.stderr).toMatch(message);
    }
    expect(existsSync(missing)).toBe(false);
  }, 60_000);

  it('--kind stopped while its reader lags: from the position it gives, every change of the kind comes once, none lost', async () => {
    const db = join(dir, 'lagging.db');
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const everything = lines((await idgov(['changes', '--db', db, '--since', '0'], env)).stdout);
    const created = everything.filter((c) => c.kind === 'created').map((c) => c.seq);
    expect(created.length).toBeGreaterThan(1_000);
    // The reader takes `readFirst` bytes and stops reading until the process has ended; or it reads
    // on slowly, a chunk every 100 ms, while the signal comes.
    for (const [follow, signal, readFirst] of [
      [['--follow'], 'SIGTERM', 0],
      [[], 'SIGINT', 300_000],
      [['--follow'], 'SIGINT', 'slowly'],
      [[], 'SIGTERM', 'slowly'],
    ] as const) {
      const args = ['changes', '--db', db, '--since', '0', '--kind', 'created', ...follow];
      const lagging = spawn(process.execPath, ['--import', fromSource, cli, ...args], {
        env: cliEnv(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      lagging.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      const ended = new Promise((resolve) => lagging.on('exit', resolve));
      let taken = '';
      const stdout = lagging.stdout;
      if (!stdout) throw new Error('no stdout');
      const take = (chunk: Buffer) => {
        taken += chunk;
        stdout.pause();
        if (readFirst === 'slowly') setTimeout(() => stdout.resume(), 100);
        else if (taken.length < readFirst) stdout.resume();
      };
      const started = new Promise((resolve) => stdout.once('data', resolve));
      stdout.on('data', take);
      await started;
      // The pipe fills behind the reader: the process waits to write, mid-batch.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      lagging.kill(signal);
      stdout.off('data', take);
      for await (const chunk of stdout) taken += chunk;
      await ended;
      const through = Number(/go on with --since (\d+)\n$/.exec(stderr)?.[1]);
      const first = lines(taken).map((c) => c.seq);
      const what = `${signal} after ${readFirst} bytes: ${stderr}`;
      expect(first.length, what).toBeGreaterThan(0);
      expect(first.length, what).toBeLessThan(created.length);
      // The position is past every whole line the reader got, and no further.
      expect(through, what).toBe(first.at(-1));
      const rest = await idgov(['changes', '--db', db, '--since', String(through), '--kind', 'created'], env);
      expect([...first, ...lines(rest.stdout).map((c) => c.seq)], what).toEqual(created);
      // A line the stop cut short is the next read's first.
      expect(rest.stdout.startsWith(taken.slice(taken.lastIndexOf('\n') + 1)), what).toBe(true);
    }
  }, 90_000);

  it.skipIf(!pg)(
    '--postgres --watch started while its database is down: each failed start is said, and it begins once the database is up',
    async () => {
      const spare = createServer();
      await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
      const port = (spare.address() as AddressInfo).port;
      await new Promise((resolve) => spare.close(resolve));
      const down = new URL(pg?.url ?? '');
      down.port = String(port);
      const watcher = started(
        ['sync', '--postgres', down.toString(), '--table', `${pg?.schema}.watch_down`, '--watch', '1'],
        env,
      );
      await until(
        'a start that failed',
        () => /Run failed: .* The next run tries again\./.test(watcher.stderr()),
        60_000,
      );
      expect(watcher.child.exitCode).toBe(null);
      const link = await silentProxy(pg?.url ?? '', port);
      try {
        await until('a run once the database is up', () => /Done: full run/.test(watcher.stderr()), 60_000);
        watcher.child.kill('SIGTERM');
        const watched = await watcher.exited;
        expect(watched.code, watched.stderr).toBe(0);
      } finally {
        await link.close();
      }
    },
    120_000,
  );

  it.skipIf(!pg)(
    '--postgres: the same feed from a PostgreSQL copy, and prune',
    async () => {
      const target = ['--postgres', pg?.url ?? '', '--table', `${pg?.schema}.cli_feed`];
      expect((await idgov(['sync', ...target], env)).code).toBe(0);
      tenant.closeTasks(2);
      expect((await idgov(['sync', ...target], env)).code).toBe(0);
      const feed = lines((await idgov(['changes', ...target, '--since', '0'], env)).stdout);
      expect(feed.length).toBeGreaterThan(1_000);
      expect(feed.filter((c) => c.kind === 'changed')).toHaveLength(2);
      const last = feed.at(-1)?.seq as number;
      const pruned = await idgov(['changes', 'prune', ...target, '--before', String(last)], env);
      expect(pruned.stderr).toBe(`Pruned ${feed.length - 1} changes before seq ${last}.\n`);
      const left = lines((await idgov(['changes', ...target, '--since', '0'], env)).stdout);
      expect(left.map((c) => c.seq)).toEqual([last]);
      // A mistyped prefix is said as such by every reader (not as a store to migrate), and the
      // connection string is never printed, even when the copy is not there.
      for (const command of [['changes', '--since', '0'], ['status'], ['export']]) {
        const missing = await idgov([...command, '--postgres', pg?.url ?? '', '--table', 'nowhere'], env);
        expect(missing.code, command[0]).toBe(2);
        expect(missing.stderr).toMatch(
          /^idgov: There is no task copy under the prefix nowhere .*check the prefix/,
        );
        expect(missing.stderr).not.toMatch(/migrate/);
        expect(missing.stderr).not.toContain(pg?.url ?? '');
      }
    },
    60_000,
  );

  it.skipIf(!pg)(
    '--postgres --follow ends at SIGINT with exit 0 while a read never answers (its connection gone half-open)',
    async () => {
      const table = `${pg?.schema}.cli_frozen`;
      expect((await idgov(['sync', '--postgres', pg?.url ?? '', '--table', table], env)).code).toBe(0);
      const link = await silentProxy(pg?.url ?? '');
      try {
        const follower = started(
          ['changes', '--postgres', link.url, '--table', table, '--since', '0', '--follow'],
          env,
        );
        await until('the follower to print the feed', () => follower.stdout().length > 0);
        // A partition: nothing passes either way, and nothing closes.
        link.silenceOpenConnections();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        follower.child.kill('SIGINT');
        const code = await Promise.race([
          follower.exited.then((exit) => exit.code),
          new Promise((resolve) => setTimeout(() => resolve('still running 8 s after SIGINT'), 8_000)),
        ]);
        expect(code).toBe(0);
      } finally {
        await link.close();
      }
    },
    60_000,
  );
});
