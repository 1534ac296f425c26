/**
 * `npm run bench`: every figure beside its reference, measured in the same run. Prints a table and
 * writes bench/results.json. `BENCH_SMALL=1` runs a quick smoke at small sizes (CI); it is never a
 * timing gate.
 */
import { writeFileSync } from 'node:fs';
import { changeFeedBenchmarks } from './change-feed.ts';
import { outboxBenchmarks } from './outbox.ts';
import { pagingBenchmarks } from './paging.ts';
import { parsingBenchmarks } from './parsing.ts';
import { signingBenchmarks } from './signing.ts';
import { sizeBenchmarks } from './size.ts';
import { printTable, type Result, SMALL } from './support.ts';
import { serviceBoundSyncBenchmarks, syncBenchmarks } from './sync.ts';
import { takeoverBenchmarks } from './takeover.ts';

const results: Result[] = [];
for (const group of [
  pagingBenchmarks,
  parsingBenchmarks,
  signingBenchmarks,
  outboxBenchmarks,
  serviceBoundSyncBenchmarks,
  changeFeedBenchmarks,
  syncBenchmarks,
  takeoverBenchmarks,
  sizeBenchmarks,
]) {
  results.push(...(await group()));
}
printTable(results);
if (!SMALL) {
  const file = new URL('./results.json', import.meta.url);
  const machine = {
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    date: new Date().toISOString(),
  };
  writeFileSync(file, `${JSON.stringify({ machine, results }, null, 2)}\n`);
  console.log(`\nwritten to bench/results.json`);
}
