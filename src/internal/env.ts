/**
 * Reads an environment variable where the runtime has one (Node, Bun, Deno with --allow-env);
 * browsers and sandboxed runtimes simply have none.
 */
export function readEnv(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
      name
    ];
    return value === '' ? undefined : value;
  } catch {
    // Deno without --allow-env throws on access.
    return undefined;
  }
}
