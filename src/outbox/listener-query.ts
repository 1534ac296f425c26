/**
 * Text (a listener's answer, an error) with the values of the listener URL's query, where a gateway
 * keeps its key (`?code=...`), taken out.
 *
 * @module
 */
import { withoutEchoes } from '../internal/echoes.ts';
import { queryParts } from '../internal/url.ts';
import type { OutboxAnswer } from './store.ts';

/** The values of `url`'s query, as written and decoded, but those too short to be a key. */
function queryValues(url: string): string[] {
  const values = queryParts(url).map((part) => part.value);
  const decoded = values.map((value) => {
    try {
      return decodeURIComponent(value.replaceAll('+', ' '));
    } catch {
      return value;
    }
  });
  return [...new Set([...values, ...decoded])].filter((value) => value.length >= 4);
}

/**
 * `text` with each value of `listener`'s query shown as `***`, in every form an answer may echo it
 * (`echoPattern`: encoded, inside JSON): a listener (or a proxy before it) that echoes the URL
 * it was called at would otherwise put its key in what is logged and shown.
 */
export function withoutQueryValues(text: string, listener: string): string {
  return withoutEchoes(text, queryValues(listener), '***');
}

/** `answer` (its body and error) with each value of `listener`'s query shown as `***`. */
export function answerWithoutQueryValues(answer: OutboxAnswer, listener: string): OutboxAnswer {
  const { body, error } = answer;
  if (body === undefined && error === undefined) return answer;
  return {
    ...answer,
    ...(body !== undefined ? { body: withoutQueryValues(body, listener) } : {}),
    ...(error !== undefined ? { error: withoutQueryValues(error, listener) } : {}),
  };
}
