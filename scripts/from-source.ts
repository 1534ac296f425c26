/**
 * Run with `node --import ./scripts/from-source.ts <file>`: resolves `@idgov/sdk` and its subpaths
 * to the TypeScript sources (scripts/source-entries.ts), so examples and
 * test fixtures run against the code as it is, without a build. `npm start` uses it.
 */
import { registerHooks } from 'node:module';
import { sourceEntries } from './source-entries.ts';

const root = new URL('..', import.meta.url);

registerHooks({
  resolve(specifier, context, next) {
    const file = sourceEntries[specifier];
    return file ? { url: new URL(file, root).href, shortCircuit: true } : next(specifier, context);
  },
});
