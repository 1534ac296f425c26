/**
 * The `idgov` command line, run as a user runs it (a child process), against the fake tenant on
 * loopback: sync, a SIGINT that keeps what was committed and says how to resume, export, and the
 * documented exit codes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSyncStore } from '../../src/sync/postgres/store.ts';
import { FakeTenant } from '../../src/testing/index.ts';
import { serveOnLoopback } from '../../src/testing/loopback-server.ts';
import { appOf } from '../../src/testing/task-filter.ts';
import { tenantEnv } from '../helpers/child.ts';
import { cliEnv, idgov } from '../helpers/idgov.ts';
import { otlpCollector } from '../helpers/otlp-collector.ts';
import { NO_POSTGRES, postgresForTests } from '../helpers/postgres.ts';
import { copiedTasks, differences, expectedTasks } from '../helpers/task-copy.ts';

const cli = fileURLToPath(new URL('../../src/cli/idgov.ts', import.meta.url));
const fromSource = fileURLToPath(new URL('../../scripts/from-source.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'idgov-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('idgov', () => {
  const tenant = new FakeTenant({ history: 3_000, seed: 31, latencyMs: 20 });
  let close: () => Promise<void>;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
    env = tenantEnv(tenant);
  });
  afterAll(() => close());

  it('--help lists the commands, the environment and the exit codes, and exits 0', async () => {
    const ran = await idgov(['--help'], {});
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/sync/);
    expect(ran.stdout).toMatch(/export/);
    expect(ran.stdout).toMatch(/IDGOV_BASE_URL/);
    expect(ran.stdout).toMatch(/130 stopped by SIGINT/);
  });

  it('--version prints the SDK version, the one package.json gives, and exits 0', async () => {
    const ran = await idgov(['--version'], {});
    expect(ran.code).toBe(0);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(ran.stdout.trim()).toBe(pkg.version);
  });

  it('lists given more than once are kept whole: --kind created --kind deleted', async () => {
    const db = join(dir, 'kinds.db');
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const ran = await idgov(
      ['changes', '--db', db, '--since', '0', '--kind', 'created', '--kind', 'deleted'],
      env,
    );
    expect(ran.code, ran.stderr).toBe(0);
    const kinds = new Set(
      ran.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).kind),
    );
    expect([...kinds].sort()).toEqual(['created', 'deleted']);
  });

  it.each([[['help']], [['help', 'sync']], [['export', '--help']]])(
    '%j shows help and exits 0',
    async (args) => {
      const ran = await idgov(args, {});
      expect(ran.code).toBe(0);
      expect(ran.stdout + ran.stderr).toMatch(/Usage: idgov/);
    },
  );

  it('sync: SIGINT keeps what was committed and says how to resume; the same command then finishes', async () => {
    const db = join(dir, 'interrupted copy.db'); // a space: the command a message suggests quotes it
    let signalled = false;
    const stopped = await idgov(['sync', '--db', db, '--concurrency', '1'], env, (text, kill) => {
      // Off a terminal, a progress line comes with the first page, then every 2 s: stop at the first.
      if (!signalled && /sync: \d+ pages/.test(text)) {
        signalled = true;
        kill();
      }
    });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(
      /Stopped by SIGINT; full run: \d+ pages.*Run the same command again to resume\./,
    );
    const partial = copiedTasks(db).size;
    expect(partial).toBeLessThan(3_000);
    // Where it stands, for the operator who wonders: no completed run, one stopped to resume.
    const stood = await idgov(['status', '--db', db], env);
    expect(stood.code, stood.stderr).toBe(0);
    expect(stood.stdout).toMatch(
      /^tasks: [\d,]+ \(TASK_STATE_CLOSED [\d,]+, TASK_STATE_OPEN [\d,]+\); deleted \d+/,
    );
    expect(stood.stdout).toMatch(/last completed run: none yet/);
    expect(stood.stdout).toMatch(/unfinished run: full, started .*: windows \d+ of \d+ done, \d+ pages/);
    // Stopped as asked: it let go of the copy and of every lease.
    expect(stood.stdout).toMatch(
      /^at work now: nothing leased: no sync is paging or refreshing the run \(idgov sync resumes it;/m,
    );
    expect(stood.stdout).not.toMatch(/sync process|left behind/);
    // An export of the unfinished first copy says it is part of the tenant, on stderr: its rows stay data.
    const early = await idgov(['export', '--db', db, '--include-deleted'], env);
    expect(early.code).toBe(0);
    expect(early.stdout.trim().split('\n')).toHaveLength(partial);
    expect(early.stderr).toMatch(
      /warning: no run of this copy has completed yet: the export holds only the tasks copied so far/,
    );
    expect(early.stderr).toContain(`idgov sync --db '${db}'`);
    const resumed = await idgov(['sync', '--db', db], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/Done: full run \(resumed\)/);
    expect(differences(copiedTasks(db), expectedTasks(tenant.tasks))).toEqual([]);
    expect((await idgov(['export', '--db', db], env)).stderr).toBe('');
  });

  it('status of a copy whose sync was SIGKILLed says its process is gone and what it left behind; the next sync takes it over', async () => {
    const db = join(dir, 'killed copy.db');
    let killed = false;
    const ran = await idgov(['sync', '--db', db, '--concurrency', '3'], env, (text, kill) => {
      if (!killed && /sync: \d+ pages/.test(text)) {
        killed = true;
        kill('SIGKILL');
      }
    });
    expect(ran.code).toBeNull();
    const status = async () => {
      const json = await idgov(['status', '--db', db, '--json'], env);
      const text = await idgov(['status', '--db', db], env);
      expect([json.code, text.code], json.stderr + text.stderr).toEqual([0, 0]);
      return { json: JSON.parse(json.stdout), text: text.stdout };
    };
    const after = await status();
    expect(after.json.syncProcess).toMatchObject({ gone: true });
    expect(after.json.unfinishedRun.windowsLeft).toBeGreaterThan(0);
    // Its windows' leases have not run out by the clock: the gone process will not renew them.
    expect(after.json.leases.windowsHeld).toBe(0);
    expect(after.json.leases.windowsRanOut).toBeGreaterThan(0);
    expect(after.text).toMatch(
      /^sync process: \d+ on .*, last seen \d+ s ago: gone \(it ended without letting the copy go/m,
    );
    expect(after.text).toMatch(
      /^left behind: [1-9]\d* windows? and \d+ open tasks? whose lease ran out without being let go: the sync that held them stopped/m,
    );
    expect(after.text).toMatch(/^at work now: nothing leased/m);
    const resumed = await idgov(['sync', '--db', db], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(differences(copiedTasks(db), expectedTasks(tenant.tasks))).toEqual([]);
    const done = await status();
    expect(done.json.leases).toEqual({ windowsHeld: 0, tasksHeld: 0, windowsRanOut: 0, tasksRanOut: 0 });
    expect([done.json.unfinishedRun, done.json.syncProcess]).toEqual([undefined, undefined]);
    expect(done.text).not.toMatch(/at work now|left behind|sync process/);
  });

  it('sync --full stopped by SIGINT says to resume without --full (which would begin the run again), and that resumes it', async () => {
    const db = join(dir, 'full-interrupted.db');
    let signalled = false;
    const stopped = await idgov(['sync', '--db', db, '--concurrency', '1', '--full'], env, (text, kill) => {
      if (!signalled && /sync: \d+ pages/.test(text)) {
        signalled = true;
        kill();
      }
    });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/Stopped by SIGINT; full run: .*Run it again without --full to resume/);
    const resumed = await idgov(['sync', '--db', db], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/Done: full run \(resumed\)/);
  });

  it("export: NDJSON of every task as sent with the copy's facts beside it, or CSV of the documented columns", async () => {
    const db = join(dir, 'export.db');
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const ndjson = await idgov(['export', '--db', db, '--include-deleted'], env);
    expect(ndjson.code).toBe(0);
    // node:sqlite is used on purpose: Node's ExperimentalWarning for it is not printed.
    expect(ndjson.stderr).not.toMatch(/ExperimentalWarning|SQLite is an experimental/);
    const lines = ndjson.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            task: { id: string; deletedAt?: string | null };
            deleted: boolean;
            vanished: boolean;
            syncedAt: string;
          },
      );
    expect(lines).toHaveLength(3_000);
    expect(new Set(lines.map((line) => line.task.id))).toEqual(new Set(tenant.tasks.map((task) => task.id)));
    // The copy's facts: a deleted task says so beside the task; none vanished; when it was fetched.
    const deleted = tenant.tasks.filter((task) => task.deletedAt).map((task) => task.id);
    expect(
      lines
        .filter((line) => line.deleted)
        .map((line) => line.task.id)
        .sort(),
    ).toEqual(deleted.sort());
    expect(lines.every((line) => line.vanished === false && !Number.isNaN(Date.parse(line.syncedAt)))).toBe(
      true,
    );
    // Without --include-deleted, the tasks that are not deleted.
    const live = await idgov(['export', '--db', db], env);
    expect(live.stdout.trim().split('\n')).toHaveLength(3_000 - deleted.length);
    // The format in any case.
    const csv = await idgov(['export', '--db', db, '--format', 'CSV', '--include-deleted'], env);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toBe('id,state,created_at,updated_at,deleted_at,vanished,synced_at');
    expect(rows).toHaveLength(3_001);
  });

  it('export filters: --state, --since (updated since), --columns; a cell a spreadsheet would run is guarded unless --csv-raw', async () => {
    const small = new FakeTenant({ history: 200, seed: 33 });
    // A task whose ID a spreadsheet would run as a formula.
    small.tasks.push(
      small.data.task({ id: '=HYPERLINK("http://evil.example","x")', createdAt: new Date().toISOString() }),
    );
    const { close: closeSmall } = await small.listen();
    try {
      const smallEnv = {
        ...env,
        ...tenantEnv(small),
      };
      const db = join(dir, 'filters.db');
      expect((await idgov(['sync', '--db', db], smallEnv)).code).toBe(0);
      const open = small.tasks.filter((task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt);
      const exported = await idgov(['export', '--db', db, '--state', 'open'], smallEnv);
      const ids = exported.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { task: { id: string } }).task.id);
      expect(ids.sort()).toEqual(open.map((task) => task.id).sort());
      const since = '2026-01-01T00:00:00.000Z';
      const recent = small.tasks.filter((task) => !task.deletedAt && (task.updatedAt ?? '') >= since);
      const sinceOut = await idgov(
        ['export', '--db', db, '--since', since, '--format', 'csv', '--columns', 'id,updated_at'],
        smallEnv,
      );
      const rows = sinceOut.stdout.trim().split('\n');
      expect(rows[0]).toBe('id,updated_at');
      expect(rows).toHaveLength(recent.length + 1);
      // Guarded by default: the cell starts with a quote, so a spreadsheet shows it as text.
      expect(rows).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")",${small.tasks.at(-1)?.updatedAt}`);
      const raw = await idgov(
        ['export', '--db', db, '--format', 'csv', '--columns', 'id', '--csv-raw'],
        smallEnv,
      );
      expect(raw.stdout).toContain('"=HYPERLINK(""http://evil.example"",""x"")"');
      const bad = await idgov(['export', '--db', db, '--columns', 'id'], smallEnv);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--columns applies to --format csv/);
      const unknown = await idgov(
        ['export', '--db', db, '--format', 'csv', '--columns', 'id,owner'],
        smallEnv,
      );
      expect(unknown.stderr).toMatch(/no column "owner"; the columns are id, state/);
      // Only the columns themselves, not what every object has.
      const inherited = await idgov(
        ['export', '--db', db, '--format', 'csv', '--columns', 'id,constructor'],
        smallEnv,
      );
      expect(inherited.code).toBe(2);
      expect(inherited.stderr).toMatch(/no column "constructor"/);
    } finally {
      await closeSmall();
    }
  });

  it('sync filters: --task-type and --app copy only those tasks; --expand fills the expanded table', async () => {
    const small = new FakeTenant({ history: 300, seed: 34 });
    const { close: closeSmall } = await small.listen();
    try {
      const smallEnv = {
        ...env,
        ...tenantEnv(small),
      };
      const db = join(dir, 'filtered.db');
      const app = small.tasks.map(appOf).find((id) => id !== undefined) as string;
      const ran = await idgov(
        ['sync', '--db', db, '--task-type', 'grant', 'revoke', '--app', app, '--expand', 'app_id'],
        smallEnv,
      );
      expect(ran.code, ran.stderr).toBe(0);
      const wanted = small.tasks.filter(
        (task) => appOf(task) === app && ('grant' in (task.type ?? {}) || 'revoke' in (task.type ?? {})),
      );
      expect(wanted.length).toBeGreaterThan(0);
      expect([...copiedTasks(db).keys()].sort()).toEqual(wanted.map((task) => task.id).sort());
      const { DatabaseSync } = await import('node:sqlite');
      const copy = new DatabaseSync(db, { readOnly: true });
      const expanded = copy.prepare('SELECT count(*) AS n FROM idgov_expanded').get() as { n: number };
      copy.close();
      expect(expanded.n).toBeGreaterThan(0);
      const typo = await idgov(['sync', '--db', db, '--task-type', 'grnat'], smallEnv);
      expect(typo.code).toBe(2);
      expect(typo.stderr).toMatch(/--task-type: no task type "grnat"; the types are grant, revoke/);
    } finally {
      await closeSmall();
    }
  });

  it('tasks search: the filters as options, a table or NDJSON; rules get: one rule as JSON', async () => {
    const open = tenant.tasks.filter(
      (task) => task.state === 'TASK_STATE_OPEN' && !task.deletedAt && task.type && 'grant' in task.type,
    );
    const json = await idgov(
      ['tasks', 'search', '--state', 'OPEN', '--type', 'grant', '--limit', '7', '--json'],
      env,
    );
    expect(json.code, json.stderr).toBe(0);
    const found = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; state: string; type: Record<string, unknown> });
    expect(found).toHaveLength(Math.min(7, open.length));
    expect(found.every((task) => task.state === 'TASK_STATE_OPEN' && 'grant' in task.type)).toBe(true);
    // As the service sent it: the SDK's own `$kind` is not in it.
    expect(json.stdout).not.toContain('$kind');
    const shown = await idgov(['tasks', 'search', '--state', 'open', '--limit', '3'], env);
    const rows = shown.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^ID\s+STATE\s+TYPE\s+CREATED\s+NAME$/);
    expect(rows).toHaveLength(4);
    expect(shown.stderr).toContain('3 task(s) (the first 3: --limit for more).');
    const badState = await idgov(['tasks', 'search', '--state', 'opn'], env);
    expect(badState.code).toBe(2);
    expect(badState.stderr).toMatch(/no task state "opn"; the states are unspecified, open, closed/);
    const rule = tenant.data.rule();
    tenant.rules.set(rule.id as string, rule);
    const got = await idgov(['rules', 'get', rule?.id ?? ''], env);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ id: rule?.id, displayName: rule?.displayName });
    const missing = await idgov(['rules', 'get', 'rule-nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^idgov: 404 .* no finding transformation rule rule-nope/);
  });

  it('sync exports its spans and metrics to the OTLP collector the OTEL_* environment names, and to none otherwise', async () => {
    const collector = await otlpCollector();
    const endpoint = collector.endpoint;
    try {
      const quiet = await idgov(['sync', '--db', join(dir, 'otel-none.db')], env);
      expect(quiet.code).toBe(0);
      expect(collector.traces() + collector.metrics()).toBe('');
      const ran = await idgov(['sync', '--db', join(dir, 'otel.db')], {
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'nightly-copy',
      });
      expect(ran.code).toBe(0);
      const traces = collector.traces();
      const metrics = collector.metrics();
      expect(traces).toContain('"idgov.sync.run"');
      expect(traces).toContain('nightly-copy');
      expect(metrics).toContain('idgov.sync.pages');
      // Never a secret.
      expect(traces + metrics).not.toContain(env.IDGOV_CLIENT_SECRET as string);
    } finally {
      collector.close();
    }
  });

  it("a stop while the run, done, waits on a collector that never answers ends 5 s later with the run's exit 0, saying so", async () => {
    // A collector that takes the connection and never answers: the export at the end waits for it.
    const silent = createServer((socket) => socket.on('error', () => {}).resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    let signalledAt = Number.NaN;
    try {
      const ran = await idgov(
        ['sync', '--db', join(dir, 'otel-silent.db')],
        {
          ...env,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
          OTEL_EXPORTER_OTLP_TIMEOUT: '30000',
        },
        (stderr, stop) => {
          if (Number.isNaN(signalledAt) && /^Done: full run/m.test(stderr)) {
            signalledAt = performance.now();
            stop('SIGTERM');
          }
        },
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toMatch(
        /\nidgov: stopped by SIGTERM while closing its store or exporting telemetry, which has not finished 5 s later: ending without it\.\n$/,
      );
      expect(ran.stderr).not.toMatch(/the store has not answered/);
      expect(performance.now() - signalledAt).toBeLessThan(15_000);
    } finally {
      silent.close();
    }
  });

  it.each([
    [['sync', '--db', 'x.db', '--concurrency', '0'], /concurrency.*a whole number from 1 to 64/],
    [['export', '--db', 'x.db', '--format', 'xml'], /--format must be ndjson or csv/],
    [['sync'], /give the copy as --db <file> \(SQLite\) or --postgres <url>, one of them/],
    [['sync', '--db', 'x.db', '--postgres', 'postgres://127.0.0.1/x'], /one of them/],
    [['frobnicate'], /unknown command/],
    [[], /Usage: idgov/],
    [['sync', '--db', ''], /--db must name the SQLite file/],
    [['export', '--db', 'file:///tmp/tasks.db'], /give the path itself, not a file: URI/],
    [['export', '--db', 'x.db', '--table', 'reports'], /--table names PostgreSQL tables/],
    [['sync', '--db', 'x.db', '--table', 'reports'], /--table names PostgreSQL tables/],
    [['export'], /give the copy as --db <file> \(SQLite\) or --postgres <url>, one of them/],
    // Not a URL: said so, rather than tried as one and reported as a refused connection.
    [['sync', '--postgres', 'localhost:5432'], /--postgres takes a connection URL, e\.g\. postgres:\/\//],
    [['export', '--postgres', 'db.example/reports'], /--postgres takes a connection URL/],
    // One value given twice: commander would keep the last, and a script act on a copy it did not mean.
    [['export', '--db', 'a.db', '--format', 'csv', '--db', 'b.db'], /--db was given twice: give it once/],
    [['sync', '--db', 'x.db', '--concurrency', '4', '--concurrency', '8'], /--concurrency was given twice/],
    [['export', '--db', 'x.db', '--since', '2026-02-30'], /no such day or time: "2026-02-30"/],
  ])('exits 2 with a message for bad usage: %j', async (args, message) => {
    const ran = await idgov(args, env);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
  });

  it('exits 2 naming what to set when the environment has no credentials, and for a file that is no copy', async () => {
    const bare = await idgov(['sync', '--db', join(dir, 'none.db')], {});
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/No credentials: .*IDGOV_CLIENT_ID/);
    // The command's name says whose message it is, once.
    expect(bare.stderr).toMatch(/^idgov: No credentials/);
    expect(bare.stderr).not.toContain('@idgov/sdk:');
    const missing = await idgov(['export', '--db', join(dir, 'nothing-here.db')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not exist: run `idgov sync --db .*` first/);
  });

  it('export says what is wrong with the path: a directory, a file that is no database, a database that is no copy', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'id,state\n'.repeat(300));
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    for (const [path, message] of [
      [dir, /is a directory/],
      [text, /is not a SQLite file, or is damaged/],
      [empty, /is a SQLite file but no task copy/],
    ] as const) {
      const ran = await idgov(['export', '--db', path], env);
      expect(ran.code, path).toBe(2);
      expect(ran.stderr).toMatch(message);
    }
    // So does a sync, which would make the file: a directory is named as one, and left as it was.
    const sync = await idgov(['sync', '--db', dir], env);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toMatch(/is a directory: name the SQLite file of the task copy in it/);
  });

  it('status of a copy another process holds locked says so (exit 1, try again), not that it holds no copy', async () => {
    const db = join(dir, 'locked.db');
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const holder = new DatabaseSync(db);
    try {
      holder.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE');
      const ran = await idgov(['status', '--db', db], env);
      expect(ran.code).toBe(1);
      expect(ran.stderr).toMatch(/waited .* for another connection's lock/);
      expect(ran.stderr).not.toMatch(/no task copy/);
    } finally {
      holder.close();
    }
    expect((await idgov(['status', '--db', db], env)).code).toBe(0);
  });

  // Root may write anywhere: the reader is run as nobody, which needs root to switch to, and a
  // repository nobody may read (a clone under /root is not).
  const NOBODY = ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  const asNobody =
    process.getuid?.() === 0 &&
    existsSync(NOBODY[0] as string) &&
    spawnSync(NOBODY[0] as string, [...NOBODY.slice(1), process.execPath, '--import', fromSource, '-e', '0'])
      .status === 0;
  it.skipIf(!asNobody)(
    'export of a copy in a directory the reader may not write says so, not that it holds no copy',
    async () => {
      const place = mkdtempSync(join(tmpdir(), 'idgov-read-only-'));
      try {
        const db = join(place, 'tasks.db');
        expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
        rmSync(`${db}-shm`, { force: true });
        rmSync(`${db}-wal`, { force: true });
        chmodSync(place, 0o555);
        const ran = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(
            '/usr/bin/setpriv',
            [
              '--reuid=65534',
              '--regid=65534',
              '--clear-groups',
              process.execPath,
              '--import',
              fromSource,
              cli,
              'export',
              '--db',
              db,
            ],
            { env: { PATH: process.env.PATH }, stdio: ['ignore', 'ignore', 'pipe'] },
          );
          let stderr = '';
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
          });
          child.on('close', (code) => resolve({ code, stderr }));
        });
        expect(ran.code).toBe(2);
        expect(ran.stderr).toMatch(/tasks\.db cannot be read from here .* may not write in that directory/);
      } finally {
        chmodSync(place, 0o755);
        rmSync(place, { recursive: true, force: true });
      }
    },
  );

  it('a PostgreSQL URL given to --db is refused without printing its password', async () => {
    const url = 'postgres://sync:Hunter2pw@127.0.0.1:5432/reports';
    for (const command of ['sync', 'export']) {
      const ran = await idgov([command, '--db', url], env);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(/--db takes a SQLite file, and this is a URL/);
      expect(ran.stderr + ran.stdout).not.toContain('Hunter2pw');
    }
  });

  it('wrong credentials are setup: exit 2, the secret never printed', async () => {
    const ran = await idgov(['sync', '--db', join(dir, 'wrong.db')], {
      ...env,
      IDGOV_CLIENT_SECRET: 'wrongsecret-XYZ',
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/401/);
    expect(ran.stderr).not.toContain('wrongsecret-XYZ');
  });

  it('SIGTERM (systemd, Kubernetes, timeout) ends a command that does not stop on it itself with 130, as the help says, not 143', async () => {
    let sent = false;
    const ran = await idgov(
      ['tasks', 'search', '--limit', '3000', '--json'],
      { ...env, IDGOV_LOG: 'info' },
      (text, kill) => {
        if (sent || !text.includes('obtained an access token')) return;
        sent = true;
        kill('SIGTERM');
      },
    );
    expect(sent).toBe(true);
    expect(ran.code).toBe(130);
  });

  it('an argument the SDK refuses is a usage mistake: exit 2', async () => {
    const ran = await idgov(['rules', 'get', ''], env);
    expect(ran.code).toBe(2);
    const typo = await idgov(['tasks', 'search', '--type', 'bogus'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^idgov: --type: no task type "bogus"/);
  });

  it('export and tasks search into a pipe their reader closed early (| head -1) stop quietly, exit 0', async () => {
    const db = join(dir, 'piped.db');
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    for (const args of [
      ['export', '--db', db],
      ['tasks', 'search', '--limit', '1000', '--json'],
    ]) {
      const child = spawn(process.execPath, ['--import', fromSource, cli, ...args], {
        env: cliEnv(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout.once('data', () => child.stdout.destroy()); // the reader has its first line, and goes
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(stderr, args.join(' ')).toBe('');
      expect(code, args.join(' ')).toBe(0);
    }
  });

  it('a sync whose stderr reader goes (a log shipper that died) loses its messages, not its run: exit 0, copy whole', async () => {
    const db = join(dir, 'stderr-gone.db');
    const child = spawn(
      process.execPath,
      ['--import', fromSource, cli, 'sync', '--db', db, '--concurrency', '2'],
      {
        env: cliEnv(env),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    child.stderr.once('data', () => child.stderr.destroy()); // the first progress line, then the reader is gone
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(differences(copiedTasks(db), expectedTasks(tenant.tasks))).toEqual([]);
  });
});

describe('a PostgreSQL server that does not answer, or wants a password not given', () => {
  /** A loopback server that takes connections and answers each one's messages with `answers`, in turn (none: never). */
  async function fakeServer(answers: readonly Buffer[]) {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
      let n = 0;
      socket.on('data', () => {
        const answer = answers[n++];
        if (answer) socket.write(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `postgres://operator@127.0.0.1:${(server.address() as AddressInfo).port}/copies`,
      close: () => {
        for (const socket of sockets) socket.destroy();
        server.close();
      },
    };
  }

  /** An authentication message of the PostgreSQL protocol ('R'), of `code` and `body`. */
  const authentication = (code: number, body: string) => {
    const head = Buffer.alloc(9);
    head.write('R');
    head.writeInt32BE(8 + Buffer.byteLength(body), 1);
    head.writeInt32BE(code, 5);
    return Buffer.concat([head, Buffer.from(body)]);
  };
  // What a server that requires a password answers: SCRAM-SHA-256, then its first message.
  const scram = [
    authentication(10, 'SCRAM-SHA-256\0\0'),
    authentication(11, 'r=abcdefghijklmnopqrstuvwxyz0123456789,s=c2FsdHNhbHQ=,i=4096'),
  ];

  it.each([
    ['never answers', [], /timeout/],
    ['asks for a password the URL does not hold', scram, /client password must be a string/],
  ])(
    'a server that %s: the command fails, and its process ends',
    async (_what, answer, said) => {
      const server = await fakeServer(answer);
      try {
        const started = Date.now();
        const ran = await Promise.race([
          idgov(['export', '--postgres', server.url], { HOME: dir }),
          new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 25_000)),
        ]);
        expect(ran).not.toBe('still running');
        if (ran === 'still running') return;
        expect(ran.code).not.toBe(0);
        expect(ran.stderr).toMatch(said);
        expect(Date.now() - started).toBeLessThan(25_000);
      } finally {
        server.close();
      }
    },
    40_000,
  );
});

const pg = await postgresForTests();
if (!pg) console.warn(`skipping the PostgreSQL export test: ${NO_POSTGRES}`);
afterAll(() => pg?.stop());

describe.skipIf(!pg)('idgov export from a PostgreSQL copy', () => {
  const tenant = new FakeTenant({ history: 1_500, seed: 32 });
  let close: () => Promise<void>;
  let env: Record<string, string>;
  beforeAll(async () => {
    ({ close } = await tenant.listen());
    env = tenantEnv(tenant);
  });
  afterAll(() => close());

  it('writes what the same export of a SQLite copy of the tenant writes, in NDJSON and CSV', async () => {
    const url = pg?.url ?? '';
    const table = `${pg?.schema}.exported`;
    const db = join(dir, 'beside-postgres.db');
    expect((await idgov(['sync', '--postgres', url, '--table', table], env)).code).toBe(0);
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const fromPg = await idgov(['export', '--postgres', url, '--table', table, '--include-deleted'], env);
    const fromSqlite = await idgov(['export', '--db', db, '--include-deleted'], env);
    expect(fromPg.code).toBe(0);
    // Each copy was synced at its own time: the rest of each line is compared.
    const tasks = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((line) => ({ ...(JSON.parse(line) as object), syncedAt: undefined }));
    expect(tasks(fromPg.stdout)).toHaveLength(1_500);
    // Both copies stand alike: the same tasks by state, one completed run, a change a task.
    const status = async (args: string[]) => {
      const ran = await idgov(['status', ...args, '--json'], env);
      expect(ran.code, ran.stderr).toBe(0);
      const { lastCompletedRun, ...rest } = JSON.parse(ran.stdout);
      expect(lastCompletedRun).toMatchObject({ kind: 'full' });
      return rest;
    };
    const pgStatus = await status(['--postgres', url, '--table', table]);
    expect(pgStatus).toEqual(await status(['--db', db]));
    expect(pgStatus.lastSeq).toBe(1_500);
    // A copy of another prefix whose first run has not completed: the warning names its --table, not its URL.
    const unfinished = `${pg?.schema}.unfinished`;
    const store = new PostgresSyncStore({ connectionString: url, table: unfinished });
    await store.migrate();
    await store.open({ baseUrl: env.IDGOV_BASE_URL ?? '', filter: '{}' });
    await store.beginRun('full', Date.now(), [{ from: 0, to: Date.now() }]);
    await store.close();
    const partial = await idgov(['export', '--postgres', url, '--table', unfinished], env);
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stderr).toContain(`Run \`idgov sync --postgres URL --table ${unfinished}\``);
    expect(partial.stderr).not.toContain(url);
    // jsonb keeps keys in an order of its own: the same tasks, in the same order, field for field.
    expect(tasks(fromPg.stdout)).toEqual(tasks(fromSqlite.stdout));
    // Every documented column but synced_at (each copy was synced at its own time).
    const csv = async (args: string[]) =>
      (await idgov([...args, '--format', 'csv'], env)).stdout
        .trim()
        .split('\n')
        .map((row) => row.split(',').slice(0, -1).join(','));
    const pgRows = await csv(['export', '--postgres', url, '--table', table, '--include-deleted']);
    expect(pgRows[0]).toBe('id,state,created_at,updated_at,deleted_at,vanished');
    expect(pgRows).toEqual(await csv(['export', '--db', db, '--include-deleted']));
    // The filters read the same from both copies.
    const filters = [
      '--state',
      'closed',
      '--since',
      '2026-10-01',
      '--format',
      'csv',
      '--columns',
      'id,state,updated_at',
    ];
    const pgFiltered = (await idgov(['export', '--postgres', url, '--table', table, ...filters], env)).stdout;
    const sqliteFiltered = (await idgov(['export', '--db', db, ...filters], env)).stdout;
    expect(pgFiltered.trim().split('\n').length).toBeGreaterThan(10);
    expect(
      pgFiltered
        .split('\n')
        .slice(1)
        .every((row) => row === '' || row.includes(',TASK_STATE_CLOSED,')),
    ).toBe(true);
    expect(pgFiltered).toBe(sqliteFiltered);
  });

  it('names the missing table (exit 2) when the copy is not there, without printing the URL', async () => {
    const url = (pg?.url ?? '').replace('postgres://postgres@', 'postgres://postgres:Secret-pw-1@');
    const ran = await idgov(['export', '--postgres', url, '--table', `${pg?.schema}.nothing`], env);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/nothing_tasks/);
    expect(ran.stderr).not.toContain('Secret-pw-1');
  });
});

it('idgov sync whose service keeps failing ends with 1, saying what it kept and how to resume; the next run resumes it', async () => {
  const tenant = new FakeTenant({ history: 600, seed: 33 });
  // Once a run has two pages in, every search is answered with `failing`, until it is put right.
  let failing: number | undefined;
  let from = 0;
  const failingFrom = (status: number | undefined) => {
    failing = status;
    from = tenant.stats.searchPages;
  };
  const server = await serveOnLoopback(async (request, remoteAddress) =>
    failing && request.url.endsWith('/search/tasks') && tenant.stats.searchPages - from >= 2
      ? Response.json({ message: 'not now' }, { status: failing })
      : tenant.handle(request, { remoteAddress }),
  );
  tenant.baseUrl = server.url;
  try {
    const env = tenantEnv(tenant, 'error');
    const db = join(mkdtempSync(join(tmpdir(), 'idgov-failed-run-')), 'copy.db');
    failingFrom(503);
    const failed = await idgov(['sync', '--db', db, '--retries', '0'], env);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toMatch(
      /^Run failed: 503 from POST \/api\/v1\/search\/tasks.*What it committed is kept; run the same command again to resume it\.$/m,
    );
    failingFrom(undefined);
    const resumed = await idgov(['sync', '--db', db], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^Done: full run \(resumed\)/m);
    // Given --full, the same command would end the run it began and begin another: it says to leave it out.
    failingFrom(503);
    const full = await idgov(['sync', '--db', db, '--retries', '0', '--full'], env);
    expect(full.code).toBe(1);
    expect(full.stderr).toMatch(/What it committed is kept; run it again without --full to resume it/);
    // A refusal another run would meet again is said as it is, without advice to run again.
    failingFrom(403);
    const refused = await idgov(['sync', '--db', db, '--retries', '0'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^idgov: 403 /m);
    expect(refused.stderr).not.toMatch(/Run failed|resume/);
  } finally {
    await server.close();
  }
});
