/** Bundle size of typical consumers (esbuild, browser, minified, gzipped) and cold import time. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { median, type Result, SMALL } from './support.ts';

const CONSUMERS = {
  'client with task search': {
    code: `import { IdGovClient } from '@idgov/sdk';
const client = new IdGovClient({ baseUrl: 'https://t.example.com', credentials: { token: 't' } });
for await (const view of client.tasks.search({ pageSize: 50 })) console.log(view.task?.id);`,
    limit: 25 * 1024,
  },
  'WebhookSender with HMAC': {
    code: `import { WebhookSender } from '@idgov/sdk/webhooks';
const sender = new WebhookSender({ url: 'https://t.example.com/api/v1/webhooks/incoming/l', hmac: { secret: 's' } });
console.log(await sender.send({ a: 1 }));`,
    limit: 8 * 1024,
  },
  'WebhookSender with JWT': {
    code: `import { WebhookSender } from '@idgov/sdk/webhooks';
const sender = new WebhookSender({ url: 'https://t.example.com/api/v1/webhooks/incoming/l', jwt: { privateKey: globalThis.key, kid: 'k' } });
console.log(await sender.send({ a: 1 }));`,
    limit: undefined,
  },
} as const;

/** Gzipped bytes of the chunks loaded at start (static imports), and of all chunks (with dynamic ones). */
function sizes(metafile: Metafile, entry: string): { initial: number; all: number } {
  const gz = (file: string) => gzipSync(readFileSync(file), { level: 9 }).byteLength;
  const initial = new Set<string>();
  const visit = (file: string) => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? [])
      if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  const all = Object.keys(metafile.outputs).filter((f) => f.endsWith('.js'));
  return {
    initial: [...initial].reduce((sum, f) => sum + gz(f), 0),
    all: all.reduce((sum, f) => sum + gz(f), 0),
  };
}

export async function sizeBenchmarks(): Promise<Result[]> {
  const results: Result[] = [];
  const root = new URL('..', import.meta.url).pathname;
  for (const [name, { code, limit }] of Object.entries(CONSUMERS)) {
    const dir = mkdtempSync(join(tmpdir(), 'idgov-size-'));
    writeFileSync(join(dir, 'consumer.js'), code);
    const outdir = join(dir, 'out');
    const { metafile } = await build({
      entryPoints: [join(dir, 'consumer.js')],
      bundle: true,
      minify: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      outdir,
      metafile: true,
      nodePaths: [join(root, 'node_modules')],
      absWorkingDir: root,
      logLevel: 'error',
      // Measure the built package, as a consumer installs it.
      plugins: [
        {
          name: 'built-package',
          setup(b) {
            b.onResolve({ filter: /^@idgov\/sdk(\/.*)?$/ }, (args) => ({
              path: join(root, 'dist', `${args.path.slice('@idgov/sdk/'.length) || 'index'}.js`),
            }));
          },
        },
      ],
    });
    const entry = Object.keys(metafile.outputs).find((f) => metafile.outputs[f]?.entryPoint) ?? '';
    const { initial, all } = sizes(metafile, entry);
    const value = name.includes('JWT') ? all : initial;
    results.push({
      name: `size: ${name}${name.includes('JWT') ? ' (with the lazily loaded JWT chunk)' : ''}`,
      value: value / 1024,
      unit: 'KiB gz',
      ratio: value / 1024,
      goal: limit ? `<= ${limit / 1024} KiB` : '(informative)',
      met: limit ? value <= limit : true,
    });
  }

  // Cold import of the package in a fresh Node process, median of 20.
  const times: number[] = [];
  for (let i = 0; i < (SMALL ? 3 : 20); i++) {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const t = performance.now(); await import('@idgov/sdk'); console.log(performance.now() - t);",
      ],
      { cwd: root },
    );
    times.push(Number(out.toString().trim()));
  }
  const startup = median(times);
  results.push({
    name: 'start-up: cold import() of @idgov/sdk',
    value: startup,
    unit: 'ms',
    ratio: startup,
    goal: '<= 60 ms (median of 20)',
    met: startup <= 60,
  });
  return results;
}
