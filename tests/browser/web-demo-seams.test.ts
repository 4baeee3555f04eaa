// The web demo in headless Chromium runs the issue-13 examples through its own seams: agent files
// as sub-runs from the bundled examples (sent with each run to the engine worker), and
// file.read / file.write in the browser's private file system (OPFS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { openDemo, runAgentInPage } from './support/demo-page.js';
import { serveDemo, type DemoServer } from './support/serve-demo.js';

describe.skipIf(!chromiumAvailable())('web demo: agent files and OPFS files (Chromium)', () => {
  let browser: Browser;
  let server: DemoServer;

  beforeAll(async () => {
    [server, browser] = await Promise.all([serveDemo(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('tea-agent-files runs its sub-agents from the bundled examples', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await page.selectOption('#example-select', 'tea-agent-files.yaml');
    expect(await runAgentInPage(page)).toBe('completed');
    const state = await page.textContent('#final-state');
    expect(state).toContain('refunded within 3 days');
    expect(state).toContain('tea-agent-files-triage.yaml');
    await context.close();
  });

  it('tea-file-notes writes and reads its files in OPFS', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await page.selectOption('#example-select', 'tea-file-notes.yaml');
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('summaries/oolong.txt');
    // The file is in the origin's private file system, read here without the engine.
    const summary = await page.evaluate(async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('tea-files');
      const file = await (await (await root.getDirectoryHandle('summaries')).getFileHandle('oolong.txt')).getFile();
      return file.text();
    });
    expect(summary).toBe('Oolong is a partly oxidised tea between green and black.');
    await context.close();
  });
});
