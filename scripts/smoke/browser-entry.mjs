// Bundled for the browser: the smoke test against the fake tenant whose address the page is given.
import * as sdk from '../../dist/index.js';
import * as webhooks from '../../dist/webhooks.js';
import { smoke } from './core.mjs';

smoke(sdk, webhooks, {
  ...window.SMOKE_ENV,
  runtime: `Chromium ${navigator.userAgent.match(/Chrome\/([\d.]+)/)?.[1]}`,
}).then(
  (result) => {
    window.SMOKE_RESULT = { ok: true, result };
  },
  (error) => {
    window.SMOKE_RESULT = { ok: false, result: String(error?.stack ?? error) };
  },
);
