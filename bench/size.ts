/** Bundle size of typical consumers (esbuild, browser, minified, gzipped) and cold import time. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { serve } from './paging.ts';
import { median, type Result, SMALL } from './support.ts';

const CONSUMERS = {
  'client with task search': {
    code: `import { IdGovClient } from '@idgov/sdk';
const client = new IdGovClient({ baseUrl: 'https://t.example.com', credentials: { token: 't' } });
for await (const view of client.tasks.search({ pageSize: 50 })) console.log(view.task?.id);`,
    // What a first request costs: everything it loads, lazily loaded chunks included.
    limit: 42 * 1024,
    onUse: [],
  },
  'WebhookSender with HMAC': {
    code: `import { WebhookSender } from '@idgov/sdk/webhooks';
const sender = new WebhookSender({ url: 'https://t.example.com/api/v1/webhooks/incoming/l', hmac: { secret: 's' } });
console.log(await sender.send({ a: 1 }));`,
    limit: 24 * 1024,
    // In browsers (Web Crypto) jose's base64url encodes the signature, loaded with the first send.
    onUse: [/jose\/dist\/webapi\/util\/base64url/],
  },
  'WebhookSender with JWT': {
    code: `import { WebhookSender } from '@idgov/sdk/webhooks';
const sender = new WebhookSender({ url: 'https://t.example.com/api/v1/webhooks/incoming/l', jwt: { privateKey: globalThis.key, kid: 'k' } });
console.log(await sender.send({ a: 1 }));`,
    limit: undefined,
    onUse: [/dist\/jwt-\w+\.js$/],
  },
} as const;

/**
 * Gzipped bytes of the chunks loaded at start (static imports), and of those plus the lazily loaded
 * chunks (and their imports) of the modules matching `onUse`: what the consumer's calls load.
 */
function sizes(
  metafile: Metafile,
  entry: string,
  onUse: readonly RegExp[],
): { initial: number; used: number } {
  const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).byteLength;
  const loadedBy = (lazy: boolean) => {
    const files = new Set<string>();
    const visit = (file: string) => {
      if (files.has(file)) return;
      files.add(file);
      for (const { kind, path } of metafile.outputs[file]?.imports ?? []) {
        // A lazily loaded chunk's entryPoint is the module the import() names.
        const named = metafile.outputs[path]?.entryPoint ?? '';
        if (kind === 'import-statement' || (lazy && onUse.some((re) => re.test(named)))) visit(path);
      }
    };
    visit(entry);
    return [...files].reduce((sum, f) => sum + gz(f), 0);
  };
  return { initial: loadedBy(false), used: loadedBy(true) };
}

/** Bundles `code` as a consumer of the built package, for browsers unless `platform` says otherwise. */
async function bundle(
  code: string,
  root: string,
  onUse: readonly RegExp[] = [],
  platform: 'browser' | 'node' = 'browser',
): Promise<{ initial: number; used: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'idgov-size-'));
  writeFileSync(join(dir, 'consumer.js'), code);
  const { metafile } = await build({
    entryPoints: [join(dir, 'consumer.js')],
    bundle: true,
    minify: true,
    splitting: true,
    format: 'esm',
    platform,
    target: 'es2022',
    outdir: join(dir, 'out'),
    metafile: true,
    nodePaths: [join(root, 'node_modules')],
    absWorkingDir: root,
    // Not the repository's tsconfig.json: its "paths" would resolve the package's imports to the sources.
    tsconfigRaw: {},
    logLevel: 'error',
    plugins: [
      {
        name: 'built-package',
        setup(b) {
          // Measure the built package, as a consumer installs it.
          b.onResolve({ filter: /^@idgov\/sdk(\/.*)?$/ }, (args) => ({
            path: join(root, 'dist', `${args.path.slice('@idgov/sdk/'.length) || 'index'}.js`),
          }));
        },
      },
    ],
  });
  const entry = Object.keys(metafile.outputs).find((f) => metafile.outputs[f]?.entryPoint) ?? '';
  return sizes(metafile, entry, onUse);
}

const kib = (bytes: number) => bytes / 1024;

export async function sizeBenchmarks(): Promise<Result[]> {
  const results: Result[] = [];
  const root = new URL('..', import.meta.url).pathname;
  for (const [name, { code, limit, onUse }] of Object.entries(CONSUMERS)) {
    const { initial, used } = await bundle(code, root, onUse);
    results.push(
      {
        name: `size: ${name}, loaded at start`,
        value: kib(initial),
        unit: 'KiB gz',
        ratio: kib(initial),
        goal: '(informative)',
        met: true,
      },
      {
        name: `size: ${name}, with the chunks its first call loads`,
        value: kib(used),
        unit: 'KiB gz',
        ratio: kib(used),
        goal: limit ? `<= ${limit / 1024} KiB` : '(informative)',
        met: limit ? used <= limit : true,
      },
    );
  }
  // What the misses are made of, measured the same way.
  const references = {
    'ky alone (the HTTP layer)': [
      "import ky from 'ky'; console.log(await ky.get('https://t.example.com').text());",
      'browser',
    ],
  } as const;
  for (const [name, [code, platform]] of Object.entries(references)) {
    const { initial } = await bundle(code, root, [], platform);
    results.push({
      name: `size: ${name}, loaded at start`,
      value: kib(initial),
      unit: 'KiB gz',
      ratio: kib(initial),
      goal: '(reference)',
      met: true,
    });
  }

  // Cold import of the package in a fresh Node process, median of 20, beside zod/mini's alone.
  const coldImport = (specifier: string) =>
    median(
      Array.from({ length: SMALL ? 3 : 20 }, () =>
        Number(
          execFileSync(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `const t = performance.now(); await import('${specifier}'); console.log(performance.now() - t);`,
            ],
            { cwd: root },
          )
            .toString()
            .trim(),
        ),
      ),
    );
  const startup = coldImport('@idgov/sdk');
  const zodAlone = coldImport('zod/mini');
  results.push({
    name: 'start-up: cold import() of @idgov/sdk, beside zod/mini alone',
    value: startup,
    reference: zodAlone,
    unit: 'ms',
    ratio: startup / zodAlone,
    // In Node, ky's feature checks at import start the runtime's fetch, which any request needs.
    goal: '(informative)',
    met: true,
  });
  // What a program pays before it has its first tasks: the import, a client, a token and a search.
  const served = await serve(10);
  try {
    const firstSearch = median(
      Array.from({ length: SMALL ? 3 : 20 }, () =>
        Number(
          execFileSync(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `const t = performance.now();
const { IdGovClient } = await import('@idgov/sdk');
const client = new IdGovClient({ baseUrl: ${JSON.stringify(served.baseUrl)}, credentials: ${JSON.stringify({ clientId: served.clientId, clientSecret: served.clientSecret })} });
await client.tasks.search();
console.log(performance.now() - t);`,
            ],
            { cwd: root },
          )
            .toString()
            .trim(),
        ),
      ),
    );
    results.push({
      name: 'start-up: cold import() and a first task search (token and page, loopback)',
      value: firstSearch,
      unit: 'ms',
      ratio: firstSearch,
      goal: '<= 150 ms (median of 20)',
      met: firstSearch <= 150,
    });
  } finally {
    served.child.kill();
  }
  return results;
}
