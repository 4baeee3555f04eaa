/**
 * Browser measurements are taken by the browser tests and kept in
 * test-artifacts/bench-browser.json (one entry per name, latest wins), which
 * bench/browser.bench.ts reports.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './serve-demo.js';

export interface BenchEntry {
  name: string;
  value: number;
  unit: string;
  baseline_value?: number;
  ratio?: number;
}

export const BENCH_FILE = path.join(ROOT, 'test-artifacts/bench-browser.json');

/** Adds or replaces one measurement. */
export async function recordBench(entry: BenchEntry): Promise<void> {
  await mkdir(path.dirname(BENCH_FILE), { recursive: true });
  let entries: BenchEntry[] = [];
  try {
    entries = JSON.parse(await readFile(BENCH_FILE, 'utf8')) as BenchEntry[];
  } catch {
    entries = [];
  }
  entries = entries.filter((existing) => existing.name !== entry.name);
  entries.push({ ...entry, ...(entry.ratio !== undefined ? { ratio: Math.round(entry.ratio * 100) / 100 } : {}) });
  const temporary = `${BENCH_FILE}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(entries, null, 2) + '\n');
  await rename(temporary, BENCH_FILE);
}
