/**
 * `idgov sync --watch` as a long-running container runs it: its runs spaced by the monotonic clock
 * (a machine clock put back an hour between two runs must not hold the next run an hour), and a
 * run that fails said and resumed by the next, the watch ending only on a signal.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { syncCommand } from '../../src/cli/sync-command.ts';
import { FakeTenant } from '../../src/testing/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'idgov-watch-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `idgov sync --watch 1` into `db` against `tenant`, in this process; `onLine` sees each stderr
 * line with those before it (to act between runs). Its exit code, or why it did not end in time.
 */
async function watch(
  tenant: FakeTenant,
  db: string,
  onLine: (line: string, lines: readonly string[]) => void,
): Promise<{ code: unknown; lines: string[] }> {
  const env = { ...process.env };
  process.env.IDGOV_BASE_URL = tenant.baseUrl;
  process.env.IDGOV_CLIENT_ID = tenant.client.clientId;
  process.env.IDGOV_CLIENT_SECRET = tenant.client.clientSecret;
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    onLine(String(chunk), lines);
    return true;
  });
  try {
    const running = syncCommand({
      db: join(dir, db),
      concurrency: 2,
      pageSize: 100,
      full: false,
      lease: 15,
      retries: 0,
      watch: 1,
    });
    const code = await Promise.race([
      running,
      new Promise((resolve) => setTimeout(() => resolve('the watch did not end in time'), 15_000)),
    ]);
    return { code, lines };
  } finally {
    vi.restoreAllMocks();
    process.env = env;
  }
}

const done = (lines: readonly string[]) => lines.filter((line) => line.startsWith('Done:')).length;
const stop = () => setImmediate(() => process.emit('SIGTERM', 'SIGTERM'));

it('the next run of --watch starts its interval after the last began, though the clock was put back an hour', async () => {
  const tenant = new FakeTenant({ history: 200, seed: 81 });
  const { close } = await tenant.listen();
  const realNow = Date.now.bind(Date);
  let offset = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
  try {
    const { code, lines } = await watch(tenant, 'copy.db', (line, all) => {
      // After the first run, the clock goes back an hour; after the second, the watch is stopped.
      if (line.startsWith('Done:') && done(all) === 1) offset = -3_600_000;
      if (line.startsWith('Done:') && done(all) === 2) stop();
    });
    expect(code, lines.join('')).toBe(0);
    expect(done(lines)).toBe(2);
  } finally {
    vi.restoreAllMocks();
    await close();
  }
});

it('a run of --watch that fails (the service down) is said, and the next run resumes: the watch ends only on a signal', async () => {
  const tenant = new FakeTenant({ history: 200, seed: 82 });
  let server = await tenant.listen();
  const port = Number(new URL(tenant.baseUrl).port);
  try {
    const { code, lines } = await watch(tenant, 'copy-down.db', (line, all) => {
      // Down after the first run, up again once a run failed; stopped after the run that follows.
      if (line.startsWith('Done:') && done(all) === 1) void server.close();
      if (line.startsWith('Run failed:')) {
        void tenant.listen({ port }).then((again) => {
          server = again;
        });
      }
      if (line.startsWith('Done:') && done(all) === 2) stop();
    });
    expect(code, lines.join('')).toBe(0);
    expect(lines.filter((line) => line.startsWith('Run failed:'))).toHaveLength(1);
    expect(lines.find((line) => line.startsWith('Run failed:'))).toMatch(
      /Could not reach .* What it committed is kept; the next run resumes it\./,
    );
    expect(done(lines)).toBe(2);
  } finally {
    await server.close();
  }
});
