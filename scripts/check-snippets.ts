/**
 * Type-checks every ```ts block of README.md and guides/*.md as a consumer module importing
 * `@idgov/sdk`, so documentation cannot drift from the API. Run by CI (`npm run check:snippets`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, '.snippets');
rmSync(out, { recursive: true, force: true });
mkdirSync(out);

const documents = ['README.md', ...readdirSync(join(root, 'guides')).map((f) => join('guides', f))];
let count = 0;
for (const document of documents) {
  const text = readFileSync(join(root, document), 'utf8');
  for (const [index, [, code]] of [...text.matchAll(/```ts\n([\s\S]*?)```/g)].entries()) {
    const name = `${document.replace(/[/.]/g, '_')}_${index + 1}.ts`;
    // `export {}` makes each block a module (top-level await, own scope).
    writeFileSync(join(out, name), `// ${document}, block ${index + 1}\n${code}\nexport {};\n`);
    count += 1;
  }
}
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({ extends: '../tsconfig.json', include: ['./*.ts'], compilerOptions: { noEmit: true } }),
);
try {
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(out, 'tsconfig.json')], { stdio: 'inherit' });
  console.log(`${count} code blocks of ${documents.length} documents type-check.`);
} catch {
  console.error('A documentation code block does not type-check (see above).');
  process.exit(1);
}
