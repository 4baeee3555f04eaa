// The IndexedDB adapter over real IndexedDB in headless Chromium: the shared storage conformance
// suite (bundled with a small vitest stand-in) and the 10,000-event write rate, which is also
// written to test-artifacts/bench-browser.json for the bench runner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { ROOT, serveStatic, type DemoServer } from './support/serve-demo.js';
import { recordBench } from './support/bench-record.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const hasAdapter = existsSync(path.join(ROOT, 'adapters/indexeddb/index.ts'));

describe.skipIf(!chromiumAvailable() || !hasAdapter)('IndexedDB adapter in Chromium', () => {
  let browser: Browser;
  let server: DemoServer;

  beforeAll(async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'tea-idb-page-'));
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'tests/browser/support/idb-conformance-page.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      outfile: path.join(directory, 'conformance.js'),
      alias: { vitest: path.join(ROOT, 'tests/deno/vitest-shim.ts') },
      logLevel: 'error',
    });
    await writeFile(
      path.join(directory, 'index.html'),
      '<!doctype html><title>conformance</title><script type="module" src="conformance.js"></script>',
    );
    server = await serveStatic(directory);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('passes the shared storage conformance suite over real IndexedDB', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => 'teaConformance' in globalThis);
    expect(await page.evaluate(() => (globalThis as any).teaConformance.shimFails())).toBe(true);
    const results = (await page.evaluate(() => (globalThis as any).teaConformance.run())) as {
      name: string;
      status: string;
      error?: string;
    }[];
    const failed = results.filter((result) => result.status === 'failed');
    expect(failed).toEqual([]);
    expect(results.filter((result) => result.status === 'passed').length).toBeGreaterThan(10);
    await page.close();
  }, 120_000);

  it('writes a 10,000-event run at 5,000 events/s or more', async () => {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => 'teaConformance' in globalThis);
    // The engine appends events as they happen; the adapter batches them (one transaction per batch).
    const measured = (await page.evaluate(() => (globalThis as any).teaConformance.eventsPerSecond(10_000, 1))) as {
      events_per_second: number;
      read_back: number;
      ms: number;
    };
    expect(measured.read_back).toBe(10_000);
    await recordBench({
      name: 'chromium indexeddb events/s (10,000-event run, appended one by one)',
      value: measured.events_per_second,
      unit: 'events/s',
      baseline_value: 5000,
      ratio: measured.events_per_second / 5000,
    });
    expect(measured.events_per_second).toBeGreaterThanOrEqual(5000);
    await page.close();
  }, 120_000);
});
