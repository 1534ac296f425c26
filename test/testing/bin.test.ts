import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { IdGovClient } from '../../src/index.ts';
import { generateWebhookKeyPair, WebhookSender } from '../../src/webhooks/index.ts';
import { idgov } from '../helpers/idgov.ts';

// The bin as users run it, from source: node_modules/.bin/node --conditions=@idgov/source src/cli/fake-tenant.ts
const root = new URL('../..', import.meta.url).pathname;
const node = join(root, 'node_modules/.bin/node');
const started: ChildProcess[] = [];

function start(args: string[]): ChildProcess {
  const child = spawn(node, ['--import', './scripts/from-source.ts', 'src/cli/fake-tenant.ts', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  return child;
}

/** Runs the bin to its end: exit code and output. */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = start(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** What the bin prints. */
interface Printed {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  rules: string[];
  tasks: number;
  listeners: Array<Record<string, string> & { privateJwk?: JsonWebKey }>;
}

/** Starts a serving bin and reads its one JSON line. */
async function serve(args: string[]): Promise<Printed> {
  const child = start(args);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) return JSON.parse(line);
  throw new Error(`the bin printed nothing: ${stderr}`);
}

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

describe('idgov-fake-tenant', () => {
  it('prints usage for --help and exits 0', async () => {
    const { code, stdout, stderr } = await run(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: idgov-fake-tenant \[options\]/);
    for (const option of [
      '--port',
      '--tasks',
      '--rules',
      '--hmac-listener',
      '--jwt-listener',
      '--fault',
      '--seed',
    ]) {
      expect(stdout).toContain(option);
    }
  });

  it.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['--tasks', 'many'], /'--tasks <n>' argument 'many' is invalid\. a whole number, 0 or more/],
    [['--port', '70000'], /'--port <n>' argument '70000' is invalid\. a whole number from 0 to 65535/],
    [
      ['--entitlements', 'lots'],
      /'--entitlements <n>' argument 'lots' is invalid\. a whole number from 0 to 10000/,
    ],
    [['--fault', 'explode=0.5'], /--fault kind must be one of serverError, rateLimit, drop, slow/],
    [['--fault', 'drop=2'], /--fault drop needs a rate from 0 to 1/],
    [['--fault', 'drop=0.6', '--fault', 'slow=0.6'], /add up to 1.2/],
    [['--jwt-alg', 'HS256'], /--jwt-alg must be one of RS256, ES256, EdDSA/],
    [['--hmac-listener', 'a/b'], /listener ID of letters/],
    [['--hmac-listener', 'x', '--jwt-listener', 'x'], /"x" is given twice/],
    [['--jwt-listener', 'x=/no/such/file.json'], /could not read a JWKS from \/no\/such\/file\.json/],
    [['--port'], /argument missing/],
    [['stray'], /too many arguments/],
  ])('refuses %j with a message and exit code 2, no stack trace', async (args, message) => {
    const { code, stdout, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('--help');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('serves tasks, rules, an HMAC and a JWT listener whose JWKS it serves, as printed', async () => {
    const info = await serve([
      '--tasks',
      '30',
      '--rules',
      '2',
      '--seed',
      '5',
      '--hmac-listener',
      'hr',
      '--jwt-listener',
      'tickets',
      '--jwt-alg',
      'EdDSA',
    ]);
    expect(info).toMatchObject({ tasks: 30, rules: [expect.any(String), expect.any(String)] });
    const client = new IdGovClient({ baseUrl: info.baseUrl, credentials: info });
    const ids: string[] = [];
    for await (const view of client.tasks.search()) ids.push(view.task?.id ?? '');
    expect(ids).toHaveLength(30);
    expect((await client.findingRules.get(info.rules[0] ?? ''))?.id).toBe(info.rules[0]);

    const [hmac, jwt] = info.listeners;
    expect(hmac).toMatchObject({
      kind: 'hmac',
      id: 'hr',
      url: `${info.baseUrl}/api/v1/webhooks/incoming/hr`,
    });
    const viaHmac = new WebhookSender({ url: hmac?.url ?? '', hmac: { secret: hmac?.secret ?? '' } });
    expect((await viaHmac.send({ a: 1 })).status).toBe('delivered');

    expect(jwt).toMatchObject({
      kind: 'jwt',
      id: 'tickets',
      alg: 'EdDSA',
      privateJwk: { kty: 'OKP', d: expect.any(String) },
    });
    const jwks = (await (await fetch(String(jwt?.jwksUrl))).json()) as {
      keys: Array<Record<string, unknown>>;
    };
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: jwt?.kid, alg: 'EdDSA' })]);
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const viaJwt = new WebhookSender({
      url: String(jwt?.url),
      jwt: { privateKey: jwt?.privateJwk ?? {}, kid: String(jwt?.kid) },
    });
    expect((await viaJwt.send({ ticket: 'OPS-42' })).status).toBe('delivered');
  });

  it('says a port in use, with exit code 2 and no stack trace', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((busy.address() as { port: number }).port);
      const { code, stdout, stderr } = await run(['--port', port]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(`cannot listen on port ${port}`);
      expect(stderr).toContain('EADDRINUSE');
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      busy.close();
    }
  });

  it('lists entitlements for each app its tasks name, as many as --entitlements says', async () => {
    const info = (await serve(['--tasks', '40', '--entitlements', '12'])) as Printed & {
      entitlements: Record<string, number>;
    };
    const apps = Object.keys(info.entitlements);
    expect(apps.length).toBeGreaterThan(1);
    const client = new IdGovClient({ baseUrl: info.baseUrl, credentials: info });
    for (const app of apps) {
      const listed = await client.appEntitlements.list(app, { pageSize: 10 }).toArray();
      expect(listed).toHaveLength(12);
      expect(new Set(listed.map((e) => e.appEntitlement?.appId))).toEqual(new Set([app]));
    }
    const none = (await serve(['--tasks', '5', '--entitlements', '0'])) as Printed & {
      entitlements: Record<string, number>;
    };
    const first = Object.keys(none.entitlements)[0] ?? '';
    const empty = new IdGovClient({ baseUrl: none.baseUrl, credentials: none });
    expect(await empty.appEntitlements.list(first).toArray()).toEqual([]);
  });

  it('takes a partner JWKS file for a JWT listener, and serves one HMAC listener by default', async () => {
    const pair = await generateWebhookKeyPair('ES256');
    const file = join(mkdtempSync(join(tmpdir(), 'fake-tenant-')), 'jwks.json');
    writeFileSync(file, JSON.stringify(pair.jwks));
    const info = await serve(['--tasks', '0', '--jwt-listener', `partner=${file}`]);
    expect(info.listeners).toEqual([expect.objectContaining({ kind: 'jwt', id: 'partner' })]);
    const sender = new WebhookSender({
      url: info.listeners[0]?.url ?? '',
      jwt: { privateKey: pair.privateKey, kid: pair.kid },
    });
    expect((await sender.send({})).status).toBe('delivered');
    const plain = await serve(['--tasks', '0']);
    expect(plain.listeners).toEqual([
      expect.objectContaining({ kind: 'hmac', id: 'demo', secret: expect.any(String) }),
    ]);
  });
});

describe('idgov-fake-tenant admin endpoints', () => {
  it('--help lists them', async () => {
    const { stdout } = await run(['--help']);
    expect(stdout).toContain('POST /_admin/tasks/close?count=N');
    expect(stdout).toContain('GET /_admin/deliveries');
  });

  it('drive an incremental sync from the shell: created, closed, commented, deleted and purged tasks reach the copy', async () => {
    const printed = await serve(['--history', '400', '--seed', '41']);
    const env = {
      IDGOV_BASE_URL: printed.baseUrl,
      IDGOV_CLIENT_ID: printed.clientId,
      IDGOV_CLIENT_SECRET: printed.clientSecret,
    };
    const db = join(mkdtempSync(join(tmpdir(), 'idgov-admin-')), 'copy.db');
    const basic = `Basic ${btoa(`${printed.clientId}:${printed.clientSecret}`)}`;
    // Without the credentials (a web page open in a browser, say): refused.
    const anonymous = await fetch(`${printed.baseUrl}/_admin/tasks/purge?count=400`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const admin = async (action: string, count: number) => {
      const answer = await fetch(`${printed.baseUrl}/_admin/tasks/${action}?count=${count}`, {
        method: 'POST',
        headers: { authorization: basic },
      });
      expect(answer.status).toBe(200);
      return (await answer.json()) as { tasks?: string[]; purged?: string[] };
    };
    const created = (await admin('create', 3)).tasks ?? [];
    const closed = (await admin('close', 2)).tasks ?? [];
    // A purge at the service (the oldest tasks), then deletions (the oldest left).
    const purged = (await admin('purge', 2)).purged ?? [];
    const deleted = (await admin('delete', 2)).tasks ?? [];
    expect(deleted.filter((id) => purged.includes(id))).toEqual([]);
    await admin('comment', 1);
    expect(created).toHaveLength(3);
    expect((await idgov(['sync', '--db', db], env)).code).toBe(0);
    const copy = async () =>
      new Map(
        (await idgov(['export', '--db', db, '--include-deleted'], env)).stdout
          .trim()
          .split('\n')
          .map(
            (line) =>
              JSON.parse(line) as {
                task: { id: string; state: string };
                deleted: boolean;
                vanished: boolean;
              },
          )
          .map((line) => [line.task.id, line] as const),
      );
    const after = await copy();
    expect(created.every((id) => after.has(id))).toBe(true);
    expect(closed.map((id) => after.get(id)?.task.state)).toEqual(['TASK_STATE_CLOSED', 'TASK_STATE_CLOSED']);
    // The purged and deleted tasks (no action, which an incremental run of closed tasks does not
    // see): a full run finds them, the purged ones vanished.
    expect((await idgov(['sync', '--db', db, '--full'], env)).code).toBe(0);
    const full = await copy();
    expect(purged.map((id) => full.get(id)?.vanished)).toEqual([true, true]);
    expect(deleted.map((id) => [full.get(id)?.deleted, full.get(id)?.vanished])).toEqual([
      [true, false],
      [true, false],
    ]);
    const bad = await fetch(`${printed.baseUrl}/_admin/tasks/close?count=many`, {
      method: 'POST',
      headers: { authorization: basic },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/count must be a whole number/);
  });

  it('list the webhook deliveries it accepted', async () => {
    const printed = await serve(['--hmac-listener', 'hr']);
    const listener = printed.listeners[0] as Record<string, string>;
    const sender = new WebhookSender({
      url: listener.url as string,
      hmac: { secret: listener.secret as string },
    });
    const sent = await sender.send({ employee_id: 'e-1' });
    const answer = await fetch(`${printed.baseUrl}/_admin/deliveries?listener=hr`, {
      headers: { authorization: `Basic ${btoa(`${printed.clientId}:${printed.clientSecret}`)}` },
    });
    const { deliveries } = (await answer.json()) as { deliveries: Array<{ eventId: string; body: unknown }> };
    expect(deliveries).toEqual([
      expect.objectContaining({ eventId: sent.eventId, body: { employee_id: 'e-1' } }),
    ]);
  });
});
