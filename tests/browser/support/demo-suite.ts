/**
 * The usual setup of a browser suite: the built demo served and Chromium launched before the
 * tests, both closed after. Call inside `describe`; read `suite.browser` / `suite.server` in tests.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { serveDemo, type DemoServer } from './serve-demo.js';

export interface DemoSuite {
  browser: Browser;
  server: DemoServer;
}

export function useDemoSuite(): DemoSuite {
  const suite = {} as DemoSuite;
  beforeAll(async () => {
    [suite.server, suite.browser] = await Promise.all([serveDemo(), launchChromium()]);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}
