import { AbortError, ConfigurationError, ConnectionError, type IdGovError } from './errors.ts';

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

/**
 * The error for a lazily loaded part of the SDK that did not load for `what` (`POST /path`): an
 * {@link AbortError} when the caller aborted meanwhile, else a {@link ConnectionError} that says
 * what to check.
 */
export function loadError(what: string, error: unknown, signal: AbortSignal | undefined): IdGovError {
  if (signal?.aborted) return new AbortError(`${what} was aborted by the caller.`, { cause: signal.reason });
  return new ConnectionError(
    `Could not load the SDK's HTTP layer for ${what}: ${(error as Error)?.message ?? error}. In a browser, check that the bundle's chunks are served.`,
    { cause: error },
  );
}

/** Whether `error`, or an error it wraps (a bundler's or test runner's), says a module is missing. */
function isModuleNotFound(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
    if (/Cannot find (package|module)|Failed to resolve module/i.test(String((e as Error).message)))
      return true;
  }
  return false;
}

/**
 * Loads an optional peer dependency (`msw`, `pg`): when it is not installed, a
 * {@link ConfigurationError} says which package to install for what (`install`: the command),
 * instead of the runtime's "Cannot find package". Any other failure of the module comes through
 * as it is.
 */
export async function importPeer<T>(
  name: string,
  usage: string,
  load: () => Promise<T>,
  install = `npm install ${name}`,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new ConfigurationError(
      `${usage} needs the ${name} package, an optional peer dependency that is not installed: ${install}.`,
      { cause: error },
    );
  }
}
