import { readEnv } from '../internal/env.ts';

/**
 * How much the SDK logs: `off`, or everything at and above a level. Default `warn`, so that a
 * mistake the SDK works around (a value it does not know, a clamped page size) is not silent.
 *
 * @group Client
 */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Where log lines go; `console` fits (the default sends every level to `console.error`, i.e.
 * stderr). Lines never carry tokens, secrets or `Authorization` headers.
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
  /** Every request and answer (method, path, filter field names, page size, status, duration). */
  debug(message: string, data?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };
const noop = () => {};

/** Whether `value` names a level (`toString` does not, though `in` would say so). */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/**
 * The default sink: every level to `console.error`, which is stderr on servers, so that
 * `IDGOV_LOG=debug` never mixes log lines into a program's stdout (its output, perhaps JSON).
 */
const stderr: Logger = {
  error: (...args) => console.error(...args),
  warn: (...args) => console.error(...args),
  info: (...args) => console.error(...args),
  debug: (...args) => console.error(...args),
};

/**
 * Builds the SDK's logger: `level` (else `IDGOV_LOG`, else `warn`) filters what reaches `sink`
 * (default: every level to stderr through `console.error`).
 *
 * @group Client
 */
export function createLogger(sink: Logger = stderr, level?: LogLevel): Logger {
  // The environment's level as a shell user writes it (DEBUG, Debug); one that names no level is
  // said once, at warn, rather than leave whoever set it wondering why nothing more is logged.
  const env = readEnv('IDGOV_LOG')?.trim().toLowerCase();
  const unknownEnv = level === undefined && env !== undefined && env !== '' && !isLogLevel(env);
  const effective: LogLevel = level ?? (isLogLevel(env) ? env : 'warn');
  const at = (l: LogLevel) =>
    RANK[l] <= RANK[effective]
      ? (message: string, data?: Record<string, unknown>) => {
          // A logger that throws must not turn an answered request into a failed one.
          try {
            if (data) sink[l as Exclude<LogLevel, 'off'>](`[@idgov/sdk] ${message}`, data);
            else sink[l as Exclude<LogLevel, 'off'>](`[@idgov/sdk] ${message}`);
          } catch {}
        }
      : noop;
  const logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
  if (unknownEnv && !toldUnknownEnv) {
    toldUnknownEnv = true;
    logger.warn(
      `IDGOV_LOG=${JSON.stringify(env)} names no level: logging at warn (the levels: ${Object.keys(RANK).join(', ')}).`,
    );
  }
  return logger;
}

// An unknown IDGOV_LOG is said once a process, not once a logger.
let toldUnknownEnv = false;
