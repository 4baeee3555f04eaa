// The studio's timeline (issue 15, point 2) in headless Chromium: a run against the mock
// OpenAI-compatible server whose first answer is an HTTP 503 (so the call is retried), with
// payload capture on, then a Lua node. The waterfall lists the nodes, the model call (with its
// tokens and retry) and the Lua node; selecting the call shows the captured request and
// response; selecting a node shows its state before and after as a diff.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, screenshot, setAgent } from './support/demo-page.js';
import { serveDemo, type DemoServer } from './support/serve-demo.js';

describe.skipIf(!chromiumAvailable())('studio timeline (Chromium)', () => {
  let browser: Browser;
  let server: DemoServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    [server, browser, mock] = await Promise.all([
      serveDemo(),
      launchChromium(),
      startMockOpenAI({ models: ['mock-model'], replies: ['Sencha'] }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mock?.close();
  });

  it('shows nodes, a retried model call and a Lua node; an item opens its diff or its request and response', async () => {
    mock.setFault({ type: 'status', status: 503, times: 1 });
    const { context, page } = await openDemo(browser, server.url, {
      preset: 'custom',
      api_base: mock.url,
      model: 'mock-model',
    });
    await setAgent(page, await fixture('timeline-capture.yaml'));
    expect(await runAgentInPage(page, 60_000)).toBe('completed');
    await page.waitForSelector('#timeline');
    const kinds = await page.$$eval('#timeline .tl-item', (items) =>
      items.map((item) => `${item.getAttribute('data-kind')}:${item.querySelector('.tl-label')?.textContent?.trim()}`),
    );
    expect(kinds).toEqual(['node:node ask', 'model:model mock-model', 'lua:Lua shape']);
    const call = page.locator('#timeline .tl-item[data-kind="model"]');
    expect(await call.textContent()).toMatch(/\d+ tok/);
    expect(await call.textContent()).toContain('1 retry');
    expect(await page.textContent('#timeline-summary')).toMatch(/2 node runs · 1 model call · \d+ tokens/);

    await call.click();
    expect(await call.getAttribute('aria-pressed')).toBe('true');
    expect(await page.textContent('#timeline-request')).toContain('Name one green tea.');
    expect(await page.textContent('#timeline-response')).toContain('Sencha');

    await page.locator('#timeline .tl-item[data-kind="lua"]').click();
    const diff = page.locator('#state-diff');
    expect(await diff.locator('tr.diff-added').count()).toBe(2);
    expect(await diff.locator('tr.diff-added', { hasText: 'shaped' }).textContent()).toContain('tea: Sencha');
    expect(await diff.textContent()).toContain('Unchanged: answer');
    await page
      .locator('section.section-timeline')
      .screenshot({ path: `${(await import('./support/demo-page.js')).SCREENSHOTS}/studio-timeline.png` });
    await screenshot(page, 'studio-timeline-page');
    await context.close();
  });
});
