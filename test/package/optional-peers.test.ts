import { describe, expect, it } from 'vitest';
import { importPeer } from '../../src/core/optional-peer.ts';
import { ConfigurationError } from '../../src/index.ts';

describe('an optional peer dependency that is not installed', () => {
  it('is reported as a ConfigurationError that names the package and how to install it', async () => {
    // A real failed import of a package that does not exist, as Node reports it.
    const missing = 'not-a-real-peer-pkg';
    const error = await importPeer(missing, 'mswHandlers()', () => import(/* @vite-ignore */ missing)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      '@idgov/sdk: mswHandlers() needs the not-a-real-peer-pkg package, an optional peer dependency that is not installed: npm install not-a-real-peer-pkg.',
    );
    expect((error as Error).cause).toBeDefined();
  });

  it('lets any other failure of an installed module through unchanged', async () => {
    const broken = new TypeError('msw: something inside it broke');
    await expect(importPeer('msw', 'mswHandlers()', () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
