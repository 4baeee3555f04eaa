// The web demo in headless Chromium with a Prolog agent (issue 16): the full engine worker fetches
// the Prolog chunk only when the agent uses Prolog, and the example runs to the same state as in
// Node; a Lua-free, Prolog-free first load never requests it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { openDemo, runAgentInPage } from './support/demo-page.js';
import { serveDemo, type DemoServer } from './support/serve-demo.js';

describe.skipIf(!chromiumAvailable())('web demo with Prolog (Chromium)', () => {
  let browser: Browser;
  let server: DemoServer;

  beforeAll(async () => {
    [server, browser] = await Promise.all([serveDemo(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads the Prolog chunk lazily and runs the family-reasoning example', async () => {
    const { context, page } = await openDemo(browser, server.url);
    const requested: string[] = [];
    // The page's and its workers' requests; the service worker precaches every built file at
    // install (web-demo/sw.ts), Prolog chunk included, which says nothing about what the app loads.
    context.on('request', (request) => {
      if (request.serviceWorker() === null) requested.push(new URL(request.url()).pathname);
    });
    await page.waitForTimeout(500);
    expect(requested.filter((file) => file.includes('prolog'))).toEqual([]);
    await page.selectOption('#example-select', 'prolog-family-reasoning.yaml');
    expect(await runAgentInPage(page)).toBe('completed');
    const finalState = (await page.textContent('#final-state')) ?? '';
    expect(finalState).toContain('descendants_of_tom');
    expect(finalState).toContain('joe');
    expect(requested.some((file) => /chunks\/prolog-script-sandbox-[\w-]+\.js$/.test(file))).toBe(true);
    await context.close();
  }, 90_000);
});
