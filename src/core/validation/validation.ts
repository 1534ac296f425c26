import type * as z from 'zod/mini';
import { IN_PLACE_CHECKS } from '../../../schemas/checks.generated.ts';
import { RequestValidationError, ResponseValidationError, type ValidationIssue } from '../errors/errors.ts';
import { dropProto, namesProto } from './proto-keys.ts';

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  return value;
}

/** Turns zod issues into path + message pairs. Messages name types, never values (which may be secrets). */
function toIssues(error: z.core.$ZodError, input: unknown): ValidationIssue[] {
  return error.issues.map((issue) => {
    // An unknown field is named by its own path: zod's points at the object that holds it.
    const at =
      issue.code === 'unrecognized_keys' && issue.keys.length === 1
        ? [...issue.path, issue.keys[0]]
        : issue.path;
    const path = at.map(String).join('.');
    let message = issue.message;
    if (issue.code === 'invalid_type' && message === 'Invalid input') {
      message = `expected ${issue.expected}, received ${typeName(valueAt(input, issue.path))}`;
    } else if (issue.code === 'unrecognized_keys') {
      message =
        issue.keys.length === 1
          ? 'unknown field: check the spelling'
          : `unknown fields ${issue.keys.join(', ')}: check the spelling`;
    } else if (message === 'Invalid input') {
      message = `invalid value (${issue.code})`;
    }
    return { path, message };
  });
}

function describe(issues: readonly ValidationIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  return shown.join('; ') + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : '');
}

/**
 * Tells whether a value parsed by `JSON.parse` matches a response schema, without copying it: the
 * value itself becomes the result. Accepts exactly what the schema accepts; the only write is the
 * `$kind` discriminator of "exactly one variant" objects, which the schema's own parse adds too.
 */
export type InPlaceCheck = (value: unknown) => boolean;

// Why not zod's parse: it builds a new object for every object of a page, free-form ones included
// (`data`, annotations, `expanded`), and that copy was most of the client's paging cost. The checks
// are generated from the schemas (scripts/generate-checks.ts says why generated, and how); zod stays
// the reference: a value that fails its check is parsed by zod for the exact error.

/**
 * The in-place check of a response schema; `undefined` for a schema that has none (a request
 * schema, or one using something only zod can run, such as a refinement), which zod parses.
 */
export function inPlaceCheck(schema: z.core.$ZodType): InPlaceCheck | undefined {
  return IN_PLACE_CHECKS.get(schema);
}

/**
 * Validates an argument before anything is sent. Throws {@link RequestValidationError} naming the
 * field, e.g. `Invalid task search: pageSize: expected integer, received string`.
 *
 * @group Errors
 */
export function parseRequest<S extends z.core.$ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = (schema as unknown as z.ZodMiniType).safeParse(value);
  if (result.success) return result.data as z.output<S>;
  const issues = toIssues(result.error, value);
  throw new RequestValidationError(`Invalid ${what}: ${describe(issues)}`, issues[0]?.path ?? '', issues);
}

/**
 * What a {@link ResponseValidationError} keeps of the body (all of it, unless a caller redacts),
 * and where its message sends the reader for it.
 */
export interface KeptBody {
  /** The body as the error keeps it. */
  readonly rawBody: (text: string) => string;
  /** The end of the message: where the body is (`see error.rawBody`), or why it is not kept. */
  readonly note: string;
  /** The answer's request ID, which the error carries. */
  readonly requestId?: string | undefined;
}

const KEEP_ALL: KeptBody = { rawBody: (text) => text, note: 'see error.rawBody' };

/**
 * Validates a response body. Throws {@link ResponseValidationError} keeping the raw body, e.g.
 * when the service sends `nextPageToken: 5` or an HTML page with status 200. `protoFree` says the
 * reader already found that no `__proto__` key can be spelt in the body (proto-keys.ts).
 *
 * @group Errors
 */
/** The issue of a {@link ResponseValidationError} whose body is not JSON at all (cut short, or a page of HTML). */
const NOT_JSON = 'body is not JSON';

/**
 * Whether `error` says an answer's body is not JSON: a body cut short (a proxy, a service that
 * died mid-answer) or a page of HTML, which an idempotent call may ask for again.
 */
export function isNotJson(error: unknown): error is ResponseValidationError {
  return (
    error instanceof ResponseValidationError &&
    error.issues[0]?.message === NOT_JSON &&
    error.issues.length === 1
  );
}

export function parseResponse<S extends z.core.$ZodType>(
  schema: S,
  rawBody: string,
  what: string,
  protoFree = false,
  kept: KeptBody = KEEP_ALL,
): z.output<S> {
  let json: unknown;
  try {
    json = !protoFree && namesProto(rawBody) ? JSON.parse(rawBody, dropProto) : JSON.parse(rawBody);
  } catch {
    const start = rawBody.trimStart().slice(0, 1);
    const guess = start === '<' ? 'an HTML page (a proxy or gateway error?)' : 'not JSON (truncated?)';
    throw new ResponseValidationError(
      `The ${what} response is ${guess}; ${kept.note}.`,
      '',
      [{ path: '', message: NOT_JSON }],
      kept.rawBody(rawBody),
      kept.requestId,
    );
  }
  return checkResponse(schema, json, what, rawBody, kept);
}

/**
 * Checks an already parsed response value (or part of one) in place, returning it; throws
 * {@link ResponseValidationError} with zod's issues when it does not match, keeping `rawBody`
 * (a function, so that a body is serialised only for an error).
 *
 * @internal
 */
export function checkResponse<S extends z.core.$ZodType>(
  schema: S,
  json: unknown,
  what: string,
  rawBody: string | (() => string),
  kept: KeptBody = KEEP_ALL,
): z.output<S> {
  if (inPlaceCheck(schema)?.(json)) return json as z.output<S>;
  const result = (schema as unknown as z.ZodMiniType).safeParse(json);
  if (result.success) return result.data as z.output<S>;
  const issues = toIssues(result.error, json);
  throw new ResponseValidationError(
    `The ${what} response does not match the API: ${describe(issues)}. If the service changed, upgrade @idgov/sdk; ${kept.note}.`,
    issues[0]?.path ?? '',
    issues,
    kept.rawBody(typeof rawBody === 'string' ? rawBody : rawBody()),
    kept.requestId,
  );
}
