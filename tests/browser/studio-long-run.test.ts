// Long runs stay usable (issue 27, point 9), in headless Chromium: a 1,000-event and a
// 10,000-event run opened from a file. The longest main-thread task while the run is drawn (Long
// Tasks API) is recorded for bench/browser.bench.ts; the timeline is grouped by round (a round
// ends when a node runs again) with counts, and only the rows in view are in the DOM.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { chromiumAvailable } from './support/chromium.js';
import { openDemo, screenshot, SCREENSHOTS } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { recordBench } from './support/bench-record.js';
import { syntheticRun } from './support/synthetic-run.js';
import { seriousViolations } from './support/axe.js';

/** Starts collecting long tasks (over 50 ms) in the page. */
function watchLongTasks(page: Page): Promise<void> {
  return page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { longTasks: number[] }).longTasks = seen;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) seen.push(entry.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
}

function longestTask(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(0, ...(window as unknown as { longTasks: number[] }).longTasks));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Opens the run file in a fresh page; returns the page and the longest task while it was drawn. */
async function openRun(
  suite: ReturnType<typeof useDemoSuite>,
  file: string,
  count: number,
  viewport?: { width: number; height: number },
) {
  const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
  await page.waitForSelector('body[data-views="ready"]');
  await page.waitForSelector('#import-file', { state: 'attached' });
  await watchLongTasks(page);
  await page.setInputFiles('#import-file', file);
  await page.waitForSelector(`#run-status[data-run-id="synthetic-${count}"][data-status="completed"]`, {
    timeout: 60_000,
  });
  await page.waitForSelector('#timeline .tl-item');
  // Whatever the view scheduled has run by then.
  await page.waitForTimeout(1000);
  return { context, page, longest: await longestTask(page) };
}

describe.skipIf(!chromiumAvailable())('studio: long runs (Chromium)', () => {
  const suite = useDemoSuite();

  it.each([1000, 10_000])(
    'opens a %d-event run: grouped by round with counts, only the rows in view drawn',
    async (count) => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-long-')), `run-${count}.ndjson`);
      writeFileSync(file, syntheticRun(count));
      // This machine is shared: the median of three openings is recorded (bench/browser.bench.ts).
      const longest: number[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        const opened = await openRun(suite, file, count);
        longest.push(opened.longest);
        await opened.context.close();
      }
      const { context, page, longest: last } = await openRun(suite, file, count);
      longest.push(last);
      await recordBench({
        name: `web demo: longest main-thread task opening a ${count.toLocaleString('en')}-event run (median of 3)`,
        value: Math.round(median(longest)),
        unit: 'ms',
        baseline_value: 100,
        ratio: median(longest) / 100,
      });
      console.log(`longest tasks opening ${count} events: ${longest.map(Math.round).join(', ')} ms`);

      // The synthetic run cycles through step_0…step_19: a round per cycle, each with its counts.
      const rounds = Math.ceil((count - 2) / 4 / 20);
      expect(await page.textContent('#timeline-summary')).toContain(`${rounds} rounds`);
      expect(await page.textContent('#timeline .tl-round[data-round="1"]')).toMatch(
        /Round 1 · 20 node runs · 20 calls · 380 tok/,
      );
      // Windowed: a few dozen rows in the DOM, not one per item or event.
      expect(await page.locator('#timeline > li:not(.vl-spacer)').count()).toBeLessThan(80);
      expect(await page.$eval('#timeline', (list) => list.clientHeight)).toBeLessThanOrEqual(420);
      expect(await page.locator('#event-list > li:not(.vl-spacer)').count()).toBeLessThan(80);
      // The end of the run is reachable: scrolled to the bottom, the last item is drawn (no spacer after it).
      await page.$eval('#timeline', (list) => (list.scrollTop = list.scrollHeight));
      await page.waitForSelector('#timeline > li:last-child:not(.vl-spacer) .tl-item[data-kind="model"]');
      expect(await page.textContent('#timeline > li:last-child')).toMatch(/model mock-model.*stopped with the run/);
      // Folding every round leaves one row per round.
      await page.click('#timeline-fold-all');
      await page.$eval('#timeline', (list) => (list.scrollTop = 0));
      await page.waitForFunction(
        (expected) => document.querySelectorAll('#timeline .tl-round').length === expected,
        rounds,
      );
      await page.click('#timeline .tl-round[data-round="2"]');
      await page.waitForSelector('#timeline .tl-round[data-round="2"][aria-expanded="true"]');
      await page.locator('#timeline .tl-item[data-kind="model"]').first().click();
      await page.waitForSelector('#timeline-detail');
      await page.locator('section.section-timeline').scrollIntoViewIfNeeded();
      await screenshot(page, `studio-long-run-${count}`, false);
      await page
        .locator('section.section-timeline')
        .screenshot({ path: `${SCREENSHOTS}/studio-long-run-${count}-part.png` });
      if (count === 1000) expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    },
    300_000,
  );

  it('is readable at 375 px', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-long-')), 'run-1000.ndjson');
    writeFileSync(file, syntheticRun(1000));
    const { context, page } = await openRun(suite, file, 1000, { width: 375, height: 800 });
    await page
      .locator('section.section-timeline')
      .screenshot({ path: `${SCREENSHOTS}/studio-long-run-1000-narrow.png` });
    // Nothing wider than the page.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await context.close();
  }, 120_000);
});
