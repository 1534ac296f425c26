/**
 * Preloaded (`node --import`) into a process a benchmark runs: at exit, writes the process's CPU
 * time (user and system, every thread) to stderr as one line, `cpu-usage {"user":µs,"system":µs}`.
 */
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `\ncpu-usage ${JSON.stringify(process.cpuUsage())}\n`);
});
