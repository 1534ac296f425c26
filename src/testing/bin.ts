/**
 * `idgov-fake-tenant`: serves a fake tenant on loopback for tests written in any language.
 * Prints one JSON line (base URL, client credentials, listeners, rule IDs) and serves until stopped.
 * Run `idgov-fake-tenant --help` for the options. Bad options print a message and exit with 2.
 *
 * @internal
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { JSONWebKeySet } from 'jose';
import type { JwtAlgorithm } from '../webhooks/key-inspect.ts';
import { FakeTenant } from './fake-tenant.ts';
import type { FaultOptions } from './faults.ts';
import { appOf } from './task-filter.ts';

const USAGE = `Usage: idgov-fake-tenant [options]

Serves a fake identity-governance tenant on 127.0.0.1 and prints one JSON line: its base URL,
client credentials, webhook listeners (URL and secret, or JWKS URL and signing key) and rule IDs.
Stop it with Ctrl-C (SIGINT) or SIGTERM.

Options:
  --port <n>                   port to listen on (default: a free one)
  --seed <n>                   seed of the generated data (default 1)
  --tasks <n>                  generated tasks, dated over the last 90 days (default 100)
  --history <n>                instead, a realistic history of n tasks: mostly recent, some in
                               bursts created at one instant, a third open, some deleted
  --rules <n>                  generated finding transformation rules (default 3)
  --entitlements <n>           entitlements listed for each app the tasks name (default 5)
  --hmac-listener <id>[=<secret>]
                               an HMAC webhook listener; a fresh secret unless given (repeatable)
  --jwt-listener <id>[=<jwks.json>]
                               a JWT webhook listener verifying against the public keys in the file;
                               without a file, a new key pair whose private JWK is printed (repeatable)
  --jwt-alg <RS256|ES256|EdDSA>
                               algorithm of generated JWT keys (default ES256)
  --fault <kind>=<rate>        inject a fault into that share of requests, 0 to 1 (repeatable);
                               kinds: serverError, rateLimit, drop, slow
  --latency <ms>               delay added to every API answer (default 0)
  -h, --help                   show this text

Without --hmac-listener or --jwt-listener, one HMAC listener "demo" is added.

Example:
  idgov-fake-tenant --tasks 200 --rules 5 --hmac-listener hr --jwt-listener tickets --fault serverError=0.1
`;

/** A mistake in the command line: reported as a message and exit code 2, never as a stack trace. */
class UsageError extends Error {}

function count(name: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? '0 or more' : `from 0 to ${max}`;
    throw new UsageError(`--${name} must be a whole number, ${range} (got "${value}").`);
  }
  return n;
}

const FAULT_KINDS = ['serverError', 'rateLimit', 'drop', 'slow'] as const;
const ALGORITHMS: readonly JwtAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

function faults(specs: readonly string[], seed: number): FaultOptions {
  const rates: Record<string, number> = {};
  for (const spec of specs) {
    const [kind = '', rateText = ''] = spec.split('=');
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`--fault kind must be one of ${FAULT_KINDS.join(', ')} (got "${spec}").`);
    }
    const rate = Number(rateText);
    if (rateText.trim() === '' || !(rate >= 0 && rate <= 1)) {
      throw new UsageError(`--fault ${kind} needs a rate from 0 to 1, as ${kind}=0.1 (got "${spec}").`);
    }
    rates[kind] = rate;
  }
  const total = Object.values(rates).reduce((sum, rate) => sum + rate, 0);
  if (total > 1) throw new UsageError(`--fault rates add up to ${total}, more than 1.`);
  return { ...rates, seed };
}

function listenerSpec(option: string, spec: string): { id: string; value: string | undefined } {
  const at = spec.indexOf('=');
  const id = at < 0 ? spec : spec.slice(0, at);
  if (!/^[\w.~-]+$/.test(id)) {
    throw new UsageError(`--${option} needs a listener ID of letters, digits, _ . ~ - (got "${spec}").`);
  }
  return { id, value: at < 0 ? undefined : spec.slice(at + 1) };
}

function readJwks(path: string): JSONWebKeySet {
  let jwks: unknown;
  try {
    jwks = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--jwt-listener could not read a JWKS from ${path}: ${(error as Error).message}`);
  }
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.some((key) => typeof key !== 'object' || key === null || 'd' in key)) {
    throw new UsageError(
      `--jwt-listener ${path} must be a JWKS of public keys: { "keys": [ ... ] }, no "d".`,
    );
  }
  return jwks as JSONWebKeySet;
}

async function main(argv: readonly string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    // parseArgs' own errors (unknown option, missing value) are usage errors too.
    throw error instanceof UsageError ? error : new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const seed = count('seed', values.seed);
  const alg = values['jwt-alg'] as JwtAlgorithm;
  if (!ALGORITHMS.includes(alg)) {
    throw new UsageError(`--jwt-alg must be one of ${ALGORITHMS.join(', ')} (got "${alg}").`);
  }
  const history = values.history === undefined ? undefined : count('history', values.history);
  const tenant = new FakeTenant({
    ...(history === undefined ? { tasks: count('tasks', values.tasks) } : { history }),
    seed,
    latencyMs: count('latency', values.latency),
    faults: faults(values.fault ?? [], seed),
  });
  const rules = Array.from({ length: count('rules', values.rules) }, () => tenant.data.rule());
  for (const rule of rules) tenant.rules.set(rule.id ?? '', rule);
  const perApp = count('entitlements', values.entitlements, 10_000);
  const apps = [...new Set(tenant.tasks.map(appOf).filter((app): app is string => !!app))].sort();
  for (const app of apps) {
    tenant.entitlements.set(
      app,
      Array.from({ length: perApp }, () => tenant.data.entitlement(app)),
    );
  }

  const hmacSpecs = (values['hmac-listener'] ?? []).map((spec) => listenerSpec('hmac-listener', spec));
  const jwtSpecs = (values['jwt-listener'] ?? []).map((spec) => listenerSpec('jwt-listener', spec));
  if (hmacSpecs.length + jwtSpecs.length === 0) hmacSpecs.push({ id: 'demo', value: undefined });
  const ids = [...hmacSpecs, ...jwtSpecs].map((spec) => spec.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new UsageError(`listener ID "${repeated}" is given twice.`);

  const printed: Array<() => Record<string, unknown>> = [];
  for (const { id, value } of hmacSpecs) {
    const listener = tenant.addListener({ id, secret: value || undefined });
    printed.push(() => ({ kind: 'hmac', id, url: listener.url, secret: listener.secret }));
  }
  for (const { id, value } of jwtSpecs) {
    if (value) {
      const listener = tenant.addListener({ id, jwks: readJwks(value) });
      printed.push(() => ({ kind: 'jwt', id, url: listener.url, jwksUrl: listener.jwksUrl }));
      continue;
    }
    const { generateWebhookKeyPair } = await import('../webhooks/key-pair.ts');
    const { exportJWK } = await import('jose');
    const pair = await generateWebhookKeyPair(alg);
    const privateJwk = { ...(await exportJWK(pair.privateKey)), kid: pair.kid, alg };
    const listener = tenant.addListener({ id, jwks: pair.jwks });
    printed.push(() => ({
      kind: 'jwt',
      id,
      url: listener.url,
      jwksUrl: listener.jwksUrl,
      kid: pair.kid,
      alg,
      privateJwk, // a throwaway test key, printed so that a sender in any language can sign with it
    }));
  }

  let server: Awaited<ReturnType<FakeTenant['listen']>>;
  try {
    server = await tenant.listen({ port: count('port', values.port, 65_535) });
  } catch (error) {
    throw new UsageError(`cannot listen on port ${values.port}: ${(error as Error).message}`);
  }
  process.stdout.write(
    `${JSON.stringify({
      baseUrl: server.url,
      ...tenant.client,
      listeners: printed.map((print) => print()),
      rules: rules.map((rule) => rule.id),
      tasks: tenant.tasks.length,
      entitlements: Object.fromEntries(apps.map((app) => [app, perApp])),
    })}\n`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void server.close().then(() => process.exit(0)));
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      port: { type: 'string', default: '0' },
      seed: { type: 'string', default: '1' },
      tasks: { type: 'string', default: '100' },
      history: { type: 'string' },
      rules: { type: 'string', default: '3' },
      entitlements: { type: 'string', default: '5' },
      latency: { type: 'string', default: '0' },
      'hmac-listener': { type: 'string', multiple: true },
      'jwt-listener': { type: 'string', multiple: true },
      'jwt-alg': { type: 'string', default: 'ES256' },
      fault: { type: 'string', multiple: true },
    },
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(
      `idgov-fake-tenant: ${error.message}\nRun idgov-fake-tenant --help for the options.\n`,
    );
    process.exit(2);
  }
  process.stderr.write(`idgov-fake-tenant failed: ${(error as Error)?.message ?? error}\n`);
  process.exit(1);
});
