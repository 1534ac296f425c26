// Runs the smoke test in headless Chromium: the fake tenant on one loopback port, the page on
// another, so every API call is a real cross-origin request the tenant must answer with CORS.
import { createServer } from 'node:http';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { FakeTenant, fakeRule } from '../../dist/testing.js';

const bundle = await build({
  entryPoints: [new URL('./browser-entry.mjs', import.meta.url).pathname],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  write: false,
  // Not the repository's tsconfig.json: its "paths" would resolve `@idgov/sdk` to the sources.
  tsconfigRaw: {},
  logLevel: 'error',
});
const tenant = new FakeTenant({ tasks: 25, rules: [fakeRule({ id: 'rule-1' })] });
const api = await tenant.listen();
const listener = tenant.addListener({ id: 'smoke' });
const env = {
  tasks: 25,
  ruleId: 'rule-1',
  baseUrl: api.url,
  ...tenant.client,
  listenerUrl: listener.url,
  hmacSecret: listener.secret,
};
const page = `<!doctype html><script>window.SMOKE_ENV = ${JSON.stringify(env)};</script><script type="module" src="/smoke.js"></script>`;
const site = createServer((request, response) => {
  const js = request.url === '/smoke.js';
  response.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' });
  response.end(js ? bundle.outputFiles[0].text : page);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  const tab = await browser.newPage();
  tab.on('pageerror', (error) => console.error(`page error: ${error.message}`));
  await tab.goto(`http://127.0.0.1:${site.address().port}/`);
  await tab.waitForFunction(() => window.SMOKE_RESULT, undefined, { timeout: 60_000 });
  const { ok, result } = await tab.evaluate(() => window.SMOKE_RESULT);
  console.log(result);
  if (!ok) process.exitCode = 1;
} finally {
  await browser.close();
  site.closeAllConnections();
  site.close();
  await api.close();
}
