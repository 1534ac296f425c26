/**
 * A module loaded on first use instead of with the SDK: the first call starts the dynamic
 * `import()`, later calls share it. A failed load (a browser chunk that could not be fetched) is
 * forgotten, so the next call tries again rather than failing forever.
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

/** Whether `error`, or an error it wraps (a bundler's or test runner's), says a module is missing. */
export function isModuleNotFound(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
    if (/Cannot find (package|module)|Failed to resolve module/i.test(String((e as Error).message)))
      return true;
  }
  return false;
}
