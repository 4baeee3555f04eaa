// The studio's view layer (issue 15, point 7) in headless Chromium: the run view is patched in
// place while a run streams (an open <details> stays open, elements are not rebuilt), and the
// render cost of a 1,000-event run and of one streamed event applied to it (User Timing measures
// the run view writes), recorded for bench/browser.bench.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { fixture, openDemo, screenshot, setAgent, startRun, waitForEnd } from './support/demo-page.js';
import { serveDemo, type DemoServer } from './support/serve-demo.js';
import { recordBench } from './support/bench-record.js';
import { syntheticRun } from './support/synthetic-run.js';

/** The durations of the run view's renders, with the event count each one showed. */
function renders(page: Page): Promise<{ duration: number; events: number }[]> {
  return page.evaluate(() =>
    performance.getEntriesByName('tea-run-view-render').map((entry) => ({
      duration: entry.duration,
      events: ((entry as PerformanceMeasure).detail as { events: number }).events,
    })),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

describe.skipIf(!chromiumAvailable())('studio view layer (Chromium)', () => {
  let browser: Browser;
  let server: DemoServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    const words = Array.from({ length: 1200 }, (_, index) => `w${index}`).join(' ');
    [server, browser, mock] = await Promise.all([
      serveDemo(),
      launchChromium(),
      startMockOpenAI({ models: ['mock-model'], chunkSize: 6, chunkDelayMs: 8, replies: [words, words, words] }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mock?.close();
  });

  it('keeps an open <details> open and its elements in place while a run streams', async () => {
    const { context, page } = await openDemo(browser, server.url, {
      preset: 'custom',
      api_base: mock.url,
      model: 'mock-model',
    });
    await setAgent(page, await fixture('slow-stream.yaml'));
    await startRun(page);
    await page.waitForFunction(() => (document.querySelector('#stream-text')?.textContent ?? '').includes('w20'));
    await page.click('#event-log > summary');
    // Mark the live elements: a rebuilt view would lose the marks.
    await page.evaluate(() => {
      (document.querySelector('#event-log') as HTMLElement & { mark?: number }).mark = 1;
      (document.querySelector('#stream-text') as HTMLElement & { mark?: number }).mark = 1;
    });
    const before = Number(/\d+/.exec((await page.textContent('#event-log > summary')) ?? '')?.[0]);
    await page.waitForFunction(() => (document.querySelector('#stream-text')?.textContent ?? '').includes('w300'));
    expect(await page.getAttribute('#event-log', 'open')).not.toBeNull();
    expect(
      await page.evaluate(() => (document.querySelector('#event-log') as HTMLElement & { mark?: number }).mark),
    ).toBe(1);
    expect(
      await page.evaluate(() => (document.querySelector('#stream-text') as HTMLElement & { mark?: number }).mark),
    ).toBe(1);
    expect(Number(/\d+/.exec((await page.textContent('#event-log > summary')) ?? '')?.[0])).toBeGreaterThan(before);
    expect(await waitForEnd(page, 60_000)).toBe('completed');
    expect(await page.getAttribute('#event-log', 'open')).not.toBeNull();
    // One streamed event applied to a run of 1,000+ events: the renders once the run was that long.
    const late = (await renders(page)).filter((entry) => entry.events >= 1000).map((entry) => entry.duration);
    expect(late.length).toBeGreaterThan(0);
    await recordBench({
      name: 'web demo: apply one streamed event to a 1,000-event run (median render)',
      value: Math.round(median(late) * 100) / 100,
      unit: 'ms',
    });
    await screenshot(page, 'studio-streaming-details-open');
    await context.close();
  });

  it('renders a 1,000-event run opened from a file', async () => {
    const { context, page } = await openDemo(browser, server.url);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-1000-')), 'run-1000.ndjson');
    writeFileSync(file, syntheticRun(1000));
    await page.waitForSelector('#import-file', { state: 'attached' });
    await page.setInputFiles('#import-file', file);
    // Past a few hundred rows the list is windowed: its summary counts them all.
    await page.waitForFunction(() => document.querySelector('#event-log > summary')?.textContent === 'Events (1000)');
    const full = (await renders(page)).filter((entry) => entry.events === 1000).map((entry) => entry.duration);
    expect(full.length).toBeGreaterThan(0);
    await recordBench({
      name: 'web demo: render a 1,000-event run',
      value: Math.round(full[0]! * 100) / 100,
      unit: 'ms',
    });
    await context.close();
  });
});
