/**
 * Browser figures: the web demo's gzipped first-load JavaScript (engine worker + UI, editor
 * excluded) and the lazy editor chunk, read from dist/web-demo/build-report.json (the build
 * writes it), plus what the Chromium tests measured (time to interactive, IndexedDB events/s
 * for a 10,000-event run, and the studio's run view: rendering a 1,000-event run and applying one
 * streamed event to a run of 1,000+ events, from User Timing measures in
 * tests/browser/studio-view.test.ts; the longest main-thread task opening a 1,000- and a
 * 10,000-event run, from tests/browser/studio-long-run.test.ts) from test-artifacts/bench-browser.json. Run the browser
 * tests (`npx vitest run tests/browser`) to refresh the Chromium figures.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './bench-result.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUDGET_BYTES = 200 * 1024;

async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path.join(ROOT, file), 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const report = (await readJson('dist/web-demo/build-report.json')) as Record<string, number> | undefined;
  if (report) {
    const firstLoad = report.first_load_js_gzip_bytes ?? 0;
    results.push({
      name: 'web demo first-load JS gzipped (engine worker + UI, no editor)',
      value: firstLoad,
      unit: 'bytes',
      baseline_value: BUDGET_BYTES,
      ratio: Math.round((firstLoad / BUDGET_BYTES) * 100) / 100,
    });
    results.push({ name: 'web demo UI JS gzipped (page only)', value: report.ui_js_gzip_bytes ?? 0, unit: 'bytes' });
    results.push({
      name: 'web demo engine worker JS gzipped',
      value: report.engine_worker_js_gzip_bytes ?? 0,
      unit: 'bytes',
    });
    results.push({
      name: 'web demo Lua engine worker JS gzipped (lazy: agents with Lua)',
      value: report.lua_engine_worker_js_gzip_bytes ?? 0,
      unit: 'bytes',
    });
    results.push({
      name: 'web demo editor chunk gzipped (lazy)',
      value: report.editor_js_gzip_bytes ?? 0,
      unit: 'bytes',
    });
  }
  const measured = (await readJson('test-artifacts/bench-browser.json')) as BenchResult[] | undefined;
  const fromBuild = new Set(results.map((result) => result.name));
  for (const entry of Array.isArray(measured) ? measured : []) if (!fromBuild.has(entry.name)) results.push(entry);
  return results;
}
