/**
 * A listener URL as `idgov outbox` shows it: never the key a gateway keeps in its query, its
 * credentials or fragment; the names of its query's parameters kept, so that listeners told apart by
 * them are shown apart.
 */
import { expect, it } from 'vitest';
import { shownListener } from '../../src/cli/outbox-access.ts';

it.each([
  ['https://gw.example/hook?code=gateway-key-77', 'https://gw.example/hook?code=***'],
  ['https://gw.example/hook?code=k1&sig=abc', 'https://gw.example/hook?code=***&sig=***'],
  // A part that is not name=value may be the key itself.
  ['https://gw.example/hook?SECRETKEY123', 'https://gw.example/hook?***'],
  ['https://gw.example/hook?code%3Dkey', 'https://gw.example/hook?***'],
  ['https://gw.example/hook?=key&a=1;b=2', 'https://gw.example/hook?***&a=***'],
  ['https://user:pw@gw.example/hook#frag', 'https://gw.example/hook'],
  ['https://gw.example/hook?', 'https://gw.example/hook'],
  ['not a url', '(not a URL)'],
])('%s is shown as %s', (url, shown) => {
  expect(shownListener(url)).toBe(shown);
});
