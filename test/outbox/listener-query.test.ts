/**
 * A listener's answer as the outbox logs, reports and lists it: the values of the listener URL's
 * query (where a gateway keeps its key) taken out in every form the listener may echo them.
 */
import { expect, it } from 'vitest';
import { withoutQueryValues } from '../../src/outbox/listener-query.ts';

// An Azure-style key: `/`, `+` and `=` in it, as base64 has.
const KEY = 'Ab/cD+ef/gh==';
const LISTENER = `https://gw.example/api/v1/webhooks/incoming/hr?code=${encodeURIComponent(KEY)}`;

it.each([
  ['as written in the URL', `no route for ?code=${encodeURIComponent(KEY)}`],
  ['decoded', `no route for key ${KEY}`],
  ['inside JSON', JSON.stringify({ url: `https://gw.example/hr?code=${KEY}` })],
  [
    "inside JSON as PHP's json_encode writes it (`\\/`)",
    `{"url":"https:\\/\\/gw.example\\/hr?code=${KEY.replaceAll('/', '\\/')}"}`,
  ],
  ['form-encoded', `code=${new URLSearchParams({ s: KEY }).toString().slice(2)}`],
  [
    "inside JSON as .NET's System.Text.Json writes it (`+` as `\\u002B`)",
    `{"url":"?code=${KEY.replace('+', '\\u002B')}"}`,
  ],
  [
    'percent-encoded in lower case',
    `code=${encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())}`,
  ],
  [
    'with every character escaped, in mixed case',
    [...KEY]
      .map(
        (c, i) =>
          `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')[i % 2 ? 'toUpperCase' : 'toLowerCase']()}`,
      )
      .join(''),
  ],
])('a key echoed %s is shown as ***', (_how, answer) => {
  const shown = withoutQueryValues(answer, LISTENER);
  expect(shown).toContain('***');
  for (const part of ['Ab/cD', 'Ab\\/cD', 'Ab%2FcD', 'ef/gh', 'ef\\/gh', 'ef%2Fgh'])
    expect(shown).not.toContain(part);
});

it('a short query value is left alone, and text that only looks like one is kept', () => {
  const shown = withoutQueryValues(
    'page 2 of code=abc; Ab-cD+ef-gh== is another key',
    `https://gw.example/hr?p=2&code=${encodeURIComponent(KEY)}`,
  );
  expect(shown).toBe('page 2 of code=abc; Ab-cD+ef-gh== is another key');
});
