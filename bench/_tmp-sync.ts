import { syncBenchmarks } from '/work/main/bench/sync.ts';
import { printTable } from '/work/main/bench/support.ts';
printTable(await syncBenchmarks());
