import { readEnv } from './env.ts';

/**
 * How much the SDK logs: `off` (the default), or everything at and above a level.
 *
 * @group Client
 */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Where log lines go; `console` fits. Lines never carry tokens, secrets or `Authorization` headers.
 *
 * @group Client
 */
export interface Logger {
  /** Failures the caller will also see as errors. */
  error(message: string, data?: Record<string, unknown>): void;
  /** Something odd that the SDK worked around (a clamped page size, a retry cap). */
  warn(message: string, data?: Record<string, unknown>): void;
  /** Retries and token refreshes. */
  info(message: string, data?: Record<string, unknown>): void;
  /** Every request and answer (method, path, status, duration). */
  debug(message: string, data?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };
const noop = () => {};

function isLogLevel(value: string | undefined): value is LogLevel {
  return value !== undefined && value in RANK;
}

/**
 * Builds the SDK's logger: `level` (else `IDGOV_LOG`, else `off`) filters what reaches `sink`.
 *
 * @group Client
 */
export function createLogger(sink: Logger = console, level?: LogLevel): Logger {
  const env = readEnv('IDGOV_LOG');
  const effective: LogLevel = level ?? (isLogLevel(env) ? env : 'off');
  const at = (l: LogLevel) =>
    RANK[l] <= RANK[effective]
      ? (message: string, data?: Record<string, unknown>) =>
          data
            ? sink[l as Exclude<LogLevel, 'off'>](`[@idgov/sdk] ${message}`, data)
            : sink[l as Exclude<LogLevel, 'off'>](`[@idgov/sdk] ${message}`)
      : noop;
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
