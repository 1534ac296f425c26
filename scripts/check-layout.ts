/**
 * Checks the layout a newcomer relies on: no file under src/ longer than 300 lines (generated
 * ones aside), no import across the walls below (type-only imports included), no lean entry point
 * that loads a heavy folder at run time, and no circle in
 * the import graph of src/ and schemas/. An edge is any
 * import that runs code: a static import or re-export, or a dynamic `import()`; with
 * `--with-types` (as CI runs it), type-only imports too, since a circle of types is still a
 * circle a reader has to untangle. Prints each circle found, files in order.
 *
 * Usage: node scripts/check-layout.ts [--with-types] [--root DIR]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const withTypes = process.argv.includes('--with-types');
const rootAt = process.argv.indexOf('--root');
const root = rootAt > 0 ? resolve(process.argv[rootAt + 1] ?? '.') : resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** The relative modules `file` loads at run time (and, with `types`, those it takes types from). */
function runtimeImports(file: string, types = withTypes): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const add = (specifier: ts.Expression | undefined) => {
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
      found.push(relative(root, resolve(root, dirname(file), specifier.text)));
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          named &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((element) => element.isTypeOnly));
      if (!typeOnly || types) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause;
      const typeOnly =
        node.isTypeOnly ||
        (named && ts.isNamedExports(named) && named.elements.every((element) => element.isTypeOnly));
      if (!typeOnly || types) add(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const runtimeImportsWithTypes = (file: string) => runtimeImports(file, true);

const files = [...sourceFiles('src'), ...sourceFiles('schemas')];
const graph = new Map(files.map((file) => [file, runtimeImports(file)]));

// Folders that must not import one another: each rule names a folder and the folders it may not
// import. The sync's engine (run/) and its backends meet only at the store contract (store.ts),
// the split plan and the copy reader, so that a store of a user's own needs nothing of ours.
const WALLS: readonly (readonly [string, readonly string[]])[] = [
  ['schemas/', ['src/']],
  [
    'src/internal/',
    ['src/core/', 'src/resources/', 'src/webhooks/', 'src/outbox/', 'src/sync/', 'src/stores/'],
  ],
  [
    'src/core/',
    [
      'src/resources/',
      'src/webhooks/',
      'src/outbox/',
      'src/sync/',
      'src/stores/',
      'src/testing/',
      'src/cli/',
    ],
  ],
  ['src/sync/run/', ['src/sync/sqlite/', 'src/sync/postgres/']],
  ['src/sync/sqlite/', ['src/sync/run/', 'src/sync/postgres/']],
  ['src/sync/postgres/', ['src/sync/run/', 'src/sync/sqlite/']],
];
const breaches: string[] = [];
for (const file of files) {
  // Walls hold for type-only imports as well: read them again with types whatever the flag.
  const imports = withTypes ? (graph.get(file) ?? []) : runtimeImportsWithTypes(file);
  for (const [folder, forbidden] of WALLS) {
    if (!file.startsWith(folder)) continue;
    for (const target of imports) {
      const wall = forbidden.find((other) => target.startsWith(other));
      if (wall) breaches.push(`${file} imports ${target}: ${folder} may not import ${wall}`);
    }
  }
}

// Entry points that must stay lean at run time, whatever they import for types: the SQLite store's
// thread starts a second runtime, which would build every schema again if it reached the wire model.
const LEAN: readonly (readonly [string, readonly string[]])[] = [
  ['src/sync/sqlite/thread.ts', ['schemas/', 'src/core/validation/']],
];
for (const [entry, forbidden] of LEAN) {
  if (!files.includes(entry)) continue;
  const reached = new Map<string, string>([[entry, entry]]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const next of runtimeImports(file, false)) {
      if (reached.has(next)) continue;
      reached.set(next, file);
      queue.push(next);
    }
  }
  for (const [file, from] of reached) {
    const heavy = forbidden.find((folder) => file.startsWith(folder));
    if (heavy)
      breaches.push(`${entry} loads ${file} at run time (through ${from}): it may not load ${heavy}`);
  }
}
for (const breach of breaches) console.error(breach);

// Depth-first search; a back edge to a file on the stack closes a circle.
const cycles: string[][] = [];
const state = new Map<string, 'open' | 'done'>();
const stack: string[] = [];
function walk(file: string): void {
  state.set(file, 'open');
  stack.push(file);
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
    else if (!state.has(next)) walk(next);
  }
  stack.pop();
  state.set(file, 'done');
}
for (const file of files) if (!state.has(file)) walk(file);

const MAX_LINES = 300;
const long = sourceFiles('src')
  .filter((file) => !file.endsWith('.generated.ts'))
  .map((file) => [file, readFileSync(join(root, file), 'utf8').split('\n').length - 1] as const)
  .filter(([, lines]) => lines > MAX_LINES);
for (const [file, lines] of long) {
  console.error(`${file} has ${lines} lines, more than ${MAX_LINES}: split it by job.`);
}

if (cycles.length > 0) {
  const kind = withTypes ? 'type-only imports included' : 'type-only imports aside';
  console.error(`${cycles.length} import circle(s) between files (${kind}):`);
  for (const cycle of cycles) console.error(`  ${cycle.join(' -> ')}`);
  process.exit(1);
}
if (long.length > 0 || breaches.length > 0) process.exit(1);
console.log(
  `No import circles among ${files.length} files of src/ and schemas/, no import across a wall; no file of src/ over ${MAX_LINES} lines.`,
);
