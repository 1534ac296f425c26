/**
 * `idgov-fake-tenant`: serves a fake tenant on loopback for tests written in any language.
 * Prints one JSON line (base URL, client credentials, listeners, rule IDs) and serves until stopped.
 * Run `idgov-fake-tenant --help` for the options. Bad options print a message and exit with 2.
 * Lives with the CLI (one argument parser for both bins); serves `src/testing/`'s fake tenant.
 *
 * @internal
 * @module
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { JSONWebKeySet } from 'jose';
import { ADMIN_ENDPOINTS } from '../testing/fake-admin.ts';
import { FakeTenant } from '../testing/fake-tenant.ts';
import type { FaultOptions } from '../testing/faults.ts';
import { appOf } from '../testing/task-filter.ts';
import type { JwtAlgorithm } from '../webhooks/key-inspect.ts';
import { onStopSignals, runProgram, UsageError, wholeNumber } from './usage.ts';

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

/** The options as commander gives them to the action. */
interface FakeTenantOptions {
  readonly port: number;
  readonly seed: number;
  readonly tasks: number;
  readonly history?: number | undefined;
  readonly rules: number;
  readonly entitlements: number;
  readonly latency: number;
  readonly hmacListener: string[];
  readonly jwtListener: string[];
  readonly jwtAlg: string;
  readonly fault: string[];
}

async function serve(values: FakeTenantOptions): Promise<void> {
  const seed = values.seed;
  const alg = values.jwtAlg as JwtAlgorithm;
  if (!ALGORITHMS.includes(alg)) {
    throw new UsageError(`--jwt-alg must be one of ${ALGORITHMS.join(', ')} (got "${alg}").`);
  }
  const history = values.history;
  const tenant = new FakeTenant({
    ...(history === undefined ? { tasks: values.tasks } : { history }),
    seed,
    latencyMs: values.latency,
    faults: faults(values.fault, seed),
  });
  const rules = Array.from({ length: values.rules }, () => tenant.data.rule());
  for (const rule of rules) tenant.rules.set(rule.id ?? '', rule);
  const perApp = values.entitlements;
  const apps = [...new Set(tenant.tasks.map(appOf).filter((app): app is string => !!app))].sort();
  for (const app of apps) {
    tenant.entitlements.set(
      app,
      Array.from({ length: perApp }, () => tenant.data.entitlement(app)),
    );
  }

  const hmacSpecs = values.hmacListener.map((spec) => listenerSpec('hmac-listener', spec));
  const jwtSpecs = values.jwtListener.map((spec) => listenerSpec('jwt-listener', spec));
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
    server = await tenant.listen({ port: values.port });
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
  onStopSignals(() => void server.close().then(() => process.exit(0)));
}

const MAX = Number.MAX_SAFE_INTEGER;
const repeated = (value: string, previous: string[]) => [...previous, value];

const program = new Command('idgov-fake-tenant')
  .description(
    'Serves a fake identity-governance tenant on 127.0.0.1 and prints one JSON line: its base URL,\nclient credentials, webhook listeners (URL and secret, or JWKS URL and signing key) and rule IDs.\nStop it with Ctrl-C (SIGINT) or SIGTERM.',
  )
  .option('--port <n>', 'port to listen on (default: a free one)', wholeNumber(0, 65_535), 0)
  .option('--seed <n>', 'seed of the generated data', wholeNumber(0, MAX), 1)
  .option('--tasks <n>', 'generated tasks, dated over the last 90 days', wholeNumber(0, MAX), 100)
  .option(
    '--history <n>',
    'instead, a realistic history of n tasks: mostly recent, some in bursts created at one instant, a third open, some deleted',
    wholeNumber(0, MAX),
  )
  .option('--rules <n>', 'generated finding transformation rules', wholeNumber(0, MAX), 3)
  .option('--entitlements <n>', 'entitlements listed for each app the tasks name', wholeNumber(0, 10_000), 5)
  .option(
    '--hmac-listener <id[=secret]>',
    'an HMAC webhook listener; a fresh secret unless given (repeatable)',
    repeated,
    [],
  )
  .option(
    '--jwt-listener <id[=jwks.json]>',
    'a JWT webhook listener verifying against the public keys in the file; without a file, a new key pair whose private JWK is printed (repeatable)',
    repeated,
    [],
  )
  .option('--jwt-alg <alg>', 'algorithm of generated JWT keys: RS256, ES256 or EdDSA', 'ES256')
  .option(
    '--fault <kind=rate>',
    'inject a fault into that share of requests, 0 to 1 (repeatable); kinds: serverError, rateLimit, drop, slow',
    repeated,
    [],
  )
  .option('--latency <ms>', 'delay added to every API answer', wholeNumber(0, MAX), 0)
  .addHelpText(
    'after',
    `
Without --hmac-listener or --jwt-listener, one HMAC listener "demo" is added.

Admin endpoints, to change the tenant from a shell, with the printed client credentials as HTTP Basic:
${Object.entries(ADMIN_ENDPOINTS)
  .map(([endpoint, what]) => `  ${endpoint}\n      ${what}`)
  .join('\n')}
e.g. curl -u "$CLIENT_ID:$CLIENT_SECRET" -X POST "$BASE_URL/_admin/tasks/close?count=5"

Example:
  idgov-fake-tenant --tasks 200 --rules 5 --hmac-listener hr --jwt-listener tickets --fault serverError=0.1`,
  )
  .action((options: FakeTenantOptions) => serve(options));

await runProgram(program, process.argv, {
  name: 'idgov-fake-tenant',
  hint: 'Run idgov-fake-tenant --help for the options.',
});
