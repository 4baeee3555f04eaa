// Accessibility checked by a machine (issue 15, point 8): axe-core in Chromium on every screen of
// the studio (tab mode home, a run with its timeline, item details and action views, history
// with a comparison, the delete and tool-approval dialogs, server mode) reports no serious or
// critical violation; dialogs open with focus on the safe choice; focus outlines are visible.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { chromiumAvailable } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, screenshot, setAgent } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { DIST, ROOT } from './support/serve-demo.js';
import { seriousViolations } from './support/axe.js';

async function expectClean(page: Page, screen: string): Promise<void> {
  const found = await seriousViolations(page);
  expect(found, `${screen}: ${JSON.stringify(found, null, 1)}`).toEqual([]);
}

describe.skipIf(!chromiumAvailable())('studio accessibility (axe-core, Chromium)', () => {
  const suite = useDemoSuite();
  let server: RunningServer;

  beforeAll(async () => {
    server = await serve({
      port: 0,
      agentsDir: path.join(ROOT, 'tests/browser/fixtures/server-agents'),
      traceDir: mkdtempSync(path.join(tmpdir(), 'tea-a11y-')),
      webDemoDir: DIST,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('tab mode: home, a run with timeline details and action views, history with a comparison, dialogs', {
    timeout: 90_000,
  }, async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await page.waitForSelector('body[data-studio="ready"]', { state: 'attached' });
    await expectClean(page, 'home');

    await page.selectOption('#example-select', 'reflection-json-schema.yaml');
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await runAgentInPage(page)).toBe('completed');
    await page.locator('#timeline .tl-item').first().click();
    await page.click('#event-log > summary');
    await expectClean(page, 'run with timeline');

    // A visible focus outline on a control reached by keyboard.
    await page.focus('#run-button');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    expect(outline).not.toBe('none');

    const rows = page.locator('#history-list .history-row');
    await rows.nth(0).locator('.pick-run').click();
    await rows.nth(1).locator('.pick-run').click();
    await page.click('#compare-button');
    await page.waitForSelector('#compare-view');
    await expectClean(page, 'comparison');

    await rows.nth(0).locator('.delete-run').click();
    await page.waitForSelector('#delete-dialog[open]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('delete-cancel');
    await expectClean(page, 'delete dialog');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#delete-dialog', { state: 'detached' });

    await setAgent(page, await fixture('react-confirm.yaml'));
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.waitForSelector('#confirm-dialog[open]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('deny-button');
    await expectClean(page, 'tool approval dialog');
    await context.close();
  });

  it('server mode', async () => {
    const { context, page } = await openDemo(suite.browser, `${server.url}/`);
    await page.waitForSelector('#server-agent');
    await expectClean(page, 'server mode');
    await screenshot(page, 'studio-server-mode');
    await context.close();
  });
});
