import { isModuleNotFound } from '../internal/lazy.ts';
import { ConfigurationError } from './errors/errors.ts';

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
