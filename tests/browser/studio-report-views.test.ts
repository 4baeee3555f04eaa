// The HTML report carries the studio's own views (issue 27, point 12) in headless Chromium: a
// reflection run with an LLM judge (four labelled model calls, one with reasoning) is saved from
// the run view and from the history; each file opens from file:// offline with every request
// recorded and shows the graph with the run's marks, the reflection view and every model call's
// chat, answer and reasoning, in the same markup the studio draws (the same components), with no
// request and no policy violation; axe finds nothing serious; screenshots at 1280 and 375 px.
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Download, Page } from 'playwright-core';
import { chromiumAvailable } from './support/chromium.js';
import {
  fixture,
  openDemo,
  runAgentInPage,
  screenshot,
  SCREENSHOTS,
  setAgent,
  WIDE_AND_NARROW,
} from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { seriousViolations } from './support/axe.js';
import { openReportOffline } from './support/offline-report.js';

describe.skipIf(!chromiumAvailable())('studio HTML report with the studio views (Chromium)', () => {
  const suite = useDemoSuite();

  const saveTo = async (download: Download) => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-report-views-')), download.suggestedFilename());
    await download.saveAs(file);
    return file;
  };

  /** The studio's markup of the graph's nodes and the reflection view, to compare with the report's. */
  const studioMarkup = (page: Page) =>
    page.evaluate(() => ({
      nodes: [...document.querySelectorAll('#run-view svg.graph g.node')].map(
        (node) => `${node.getAttribute('data-node')} ${node.getAttribute('class')}`,
      ),
      reflection: document.querySelector('#run-view .action-view[class*="action-reflection"]')?.outerHTML ?? '',
    }));

  it('saves a reflection run with the graph, the reflection view and every model call, from the run view and from the history', {
    timeout: 120_000,
  }, async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await setAgent(page, await fixture('reflection-think.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    await page.waitForSelector('#run-view .action-view[class*="action-reflection"]');
    const studio = await studioMarkup(page);
    expect(studio.nodes.length).toBeGreaterThan(2);

    const fromView = page.waitForEvent('download');
    await page.click('#save-report');
    const viewFile = await saveTo(await fromView);
    await page.waitForSelector('#history-list .history-row .report-run');
    const fromHistory = page.waitForEvent('download');
    await page.locator('#history-list .history-row .report-run').first().click();
    const historyFile = await saveTo(await fromHistory);
    expect(path.basename(historyFile)).toBe(path.basename(viewFile));

    for (const file of [viewFile, historyFile]) {
      const html = await readFile(file, 'utf8');
      expect(html).toContain('<style>'); // the studio's stylesheet travels inside
      const report = await openReportOffline(suite.browser, file);
      const view = report.page.locator('#studio-views');
      // The graph, drawn by the studio's graph view with the run's marks: the same nodes, same classes.
      const nodes = await view
        .locator('svg.graph g.node')
        .evaluateAll((items) => items.map((node) => `${node.getAttribute('data-node')} ${node.getAttribute('class')}`));
      expect(nodes).toEqual(studio.nodes);
      expect(nodes.some((node) => /write .*visited/.test(node))).toBe(true);
      // The reflection view, the same markup as in the studio.
      expect(
        await view.locator('.action-view[class*="action-reflection"]').evaluate((element) => element.outerHTML),
      ).toBe(studio.reflection);
      // Every model call: its purpose, the chat sent, the answer, the reasoning kept apart.
      const calls = view.locator('#report-calls > li');
      expect(await calls.count()).toBe(4);
      expect(await calls.locator('details > summary').first().first().textContent()).toContain('generator (attempt 1)');
      expect(await calls.nth(1).locator('details > summary').first().textContent()).toContain('judge (attempt 1)');
      expect(await calls.first().locator('.role-user').textContent()).toContain(
        'Write a one-line blurb for our green tea',
      );
      expect(await calls.first().locator('#model-call-answer').textContent()).toBe(
        'A bright, grassy green tea from the misty hills of Shizuoka.',
      );
      await calls.first().locator('.reasoning > summary').click();
      expect(await calls.first().locator('.reasoning pre').textContent()).toBe(
        'The buyer wants something short. I will describe the taste first.',
      );
      expect(await calls.nth(1).locator('.role-system').count()).toBe(1);
      // The final state, once (the studio's section), and the report's own timeline and events.
      expect(await report.page.locator('#final-state').count()).toBe(1);
      expect(await report.page.textContent('#final-state')).toContain('50 cups for $12');
      // Offline from disk: the file was the only request; nothing broke the page's policy.
      expect(report.requests).toEqual([pathToFileURL(file).href]);
      expect(await report.violations()).toEqual([]);
      expect(await report.page.evaluate(() => [document.scripts.length, document.images.length])).toEqual([2, 0]);
      await report.context.close();
    }

    // At both widths: pictures, and axe (in a context that lets its script in).
    for (const [width, viewport] of WIDE_AND_NARROW) {
      const report = await openReportOffline(suite.browser, viewFile, viewport ?? { width: 1280, height: 900 });
      // Nothing makes the page scroll sideways (a wide table scrolls in its own box).
      expect(await report.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        (viewport ?? { width: 1280 }).width,
      );
      await screenshot(report.page, `studio-report-views-${width}`);
      // The README's picture: the studio's views in the report (graph, reflection, a model call).
      const views = width === 'wide' ? await report.page.locator('#studio-views').boundingBox() : null;
      if (views)
        await report.page.screenshot({
          path: path.join(SCREENSHOTS, 'studio-report-views-part.png'),
          fullPage: true,
          clip: { ...views, height: Math.min(views.height, 760) },
        });
      await report.context.close();
      const checking = await suite.browser.newContext({
        offline: true,
        bypassCSP: true,
        viewport: viewport ?? { width: 1280, height: 900 },
      });
      const checked = await checking.newPage();
      await checked.goto(pathToFileURL(viewFile).href);
      expect(await seriousViolations(checked)).toEqual([]);
      await checking.close();
    }
    await context.close();
  });
});
