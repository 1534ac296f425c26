import { RequestValidationError } from '../core/errors/errors.ts';
import { pathParamProblem } from '../internal/url.ts';

/** Encodes one path parameter of a call; refuses what would address another resource. */
export function pathParam(name: string, value: unknown): string {
  const problem = pathParamProblem(name, value);
  if (problem) throw new RequestValidationError(problem, name);
  return encodeURIComponent(value as string);
}
