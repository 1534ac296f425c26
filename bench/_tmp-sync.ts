import { printTable } from '/work/main/bench/support.ts';
import { syncBenchmarks } from '/work/main/bench/sync.ts';

printTable(await syncBenchmarks());
