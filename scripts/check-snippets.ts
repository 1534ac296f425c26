/**
 * Checks every ```ts block of README.md and guides/*.md as a consumer module importing
 * `@idgov/sdk`: all of them type-check, and every block that can run does, against a fake tenant
 * on loopback standing in for the documentation's `https://acme.example.com` (with the
 * credentials and webhook listeners the snippets read from the environment). A block that cannot
 * run here says why in its fence: ```ts typecheck-only: <reason>. Run by CI (`npm run check:snippets`).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FakeTenant, fakeRule } from '../src/testing/index.ts';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.snippets');
rmSync(out, { recursive: true, force: true });
mkdirSync(out);

interface Snippet {
  readonly name: string;
  readonly where: string;
  /** Why it only type-checks, or undefined when it runs. */
  readonly typecheckOnly: string | undefined;
}
const documents = ['README.md', ...readdirSync(join(root, 'guides')).map((f) => join('guides', f))];
const snippets: Snippet[] = [];
for (const document of documents) {
  const text = readFileSync(join(root, document), 'utf8');
  for (const [index, [, info = '', code]] of [...text.matchAll(/```ts([^\n]*)\n([\s\S]*?)```/g)].entries()) {
    const name = `${document.replace(/[/.]/g, '_')}_${index + 1}.ts`;
    const where = `${document}, block ${index + 1}`;
    const typecheckOnly = /typecheck-only:?\s*(.*)/.exec(info)?.[1] || undefined;
    if (info.trim() && !typecheckOnly)
      throw new Error(`${where}: say why it cannot run: \`\`\`ts typecheck-only: <reason>`);
    // `export {}` makes each block a module (top-level await, own scope).
    writeFileSync(join(out, name), `// ${where}\n${code}\nexport {};\n`);
    snippets.push({ name, where, typecheckOnly });
  }
}
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({ extends: '../tsconfig.json', include: ['./*.ts'], compilerOptions: { noEmit: true } }),
);
try {
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(out, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error('A documentation code block does not type-check (see above).');
  process.exit(1);
}

// The tenant the snippets talk to: the credentials and listeners they read from the environment.
const credentials = { clientId: 'sync@acme.example.com/pcc', clientSecret: 'snippet-client-secret' };
const webhookSecret = 'snippet-webhook-secret';
const tenant = new FakeTenant({ tasks: 60, client: credentials, rules: [fakeRule({ id: 'rule-id' })] });
for (const id of ['listener-id', 'hr-offboarding', 'hr', 'l'])
  tenant.addListener({ id, secret: webhookSecret });
const server = await tenant.listen();
const env = {
  ...process.env,
  IDGOV_BASE_URL: 'https://acme.example.com',
  IDGOV_CLIENT_ID: credentials.clientId,
  IDGOV_CLIENT_SECRET: credentials.clientSecret,
  IDGOV_TOKEN: '',
  IDGOV_WEBHOOK_SECRET: webhookSecret,
  SNIPPET_FAKE_TENANT_URL: server.url,
};
const failures: string[] = [];
let ran = 0;
for (const snippet of snippets) {
  if (snippet.typecheckOnly) continue;
  const args = ['--import', './scripts/from-source.ts', '--import', './scripts/snippets/redirect.ts'];
  try {
    await promisify(execFile)(process.execPath, [...args, join(out, snippet.name)], {
      cwd: root,
      env,
      timeout: 60_000,
    });
    ran += 1;
  } catch (error) {
    const { stderr, signal } = error as { stderr?: string; signal?: string };
    failures.push(
      `${snippet.where}: ${signal ? `killed (${signal}) after 60 s` : (stderr ?? String(error)).trim()}`,
    );
  }
}
await server.close();
const skipped = snippets.filter((s) => s.typecheckOnly);
console.log(
  `${snippets.length} code blocks of ${documents.length} documents type-check; ${ran} ran against the fake tenant; ${skipped.length} only type-check:`,
);
for (const s of skipped) console.log(`  ${s.where}: ${s.typecheckOnly}`);
if (failures.length) {
  console.error(`\n${failures.length} code blocks failed when run as written:\n\n${failures.join('\n\n')}`);
  process.exit(1);
}
