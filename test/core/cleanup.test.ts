import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('aborts and timeouts leave no timer or socket keeping the process alive', {
  timeout: 30_000,
}, async () => {
  const script = fileURLToPath(new URL('../fixtures/abort-and-exit.ts', import.meta.url));
  const fromSource = new URL('../../scripts/from-source.ts', import.meta.url).href;
  const child = spawn(process.execPath, ['--import', fromSource, script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const killer = setTimeout(() => child.kill(), 10_000); // a leak would keep it alive: fail fast, not at the test timeout
  const exitedAt = await new Promise<number>((resolve) => child.on('exit', () => resolve(Date.now())));
  clearTimeout(killer);
  const [, outcomes = '[]', doneAt = '0'] = /done (\[.*\]) (\d+)/.exec(output) ?? [];
  expect(JSON.parse(outcomes)).toEqual(['AbortError', 'AbortError', 'resolved', 'TimeoutError']);
  // The 30 s retry wait and the 400 ms answers must not hold the event loop open.
  expect(exitedAt - Number(doneAt)).toBeLessThan(300);
});
