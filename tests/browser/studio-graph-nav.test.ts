// The graph as a navigator (issue 27, point 8) in headless Chromium. In the tab: a pause set on
// the graph before a node stops the next run there (marked on the graph), the state edited at the
// pause is what the run continues with, loop counts and the node that never ran are drawn, and a
// node picked on the graph (click or keyboard) marks its items in the timeline and selects its last
// run with its state. In server mode (a `tea-edge serve` here): pauses cannot be set from the
// graph (the run route takes only the input) and say so; a pause's state is edited and the run
// continued through the resume route's state_update.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import {
  fixture,
  openDemo,
  runAgentInPage,
  screenshot,
  setAgent,
  waitForEnd,
  WIDE_AND_NARROW,
} from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { DIST, ensureBuilt, ROOT } from './support/serve-demo.js';
import { seriousViolations } from './support/axe.js';

const node = (name: string) => `svg.graph g.node[data-node="${name}"]`;

/** Saves the part of the page from the top of `from` to the bottom of `to` (the README's pictures). */
async function saveSpan(page: Page, from: string, to: string, name: string): Promise<void> {
  const scrollY = await page.evaluate(() => window.scrollY);
  const top = (await page.locator(from).boundingBox())!;
  const bottom = (await page.locator(to).boundingBox())!;
  await page.screenshot({
    path: path.join(ROOT, 'test-artifacts/screenshots', `${name}.png`),
    fullPage: true,
    clip: { x: top.x, y: top.y + scrollY, width: top.width, height: bottom.y + bottom.height - top.y },
  });
}

/** Replaces the value of `"content": "<from>"` in the pause editor's JSON. */
async function editPausedState(page: Page, from: string, to: string): Promise<void> {
  const text = await page.inputValue('#pause-state');
  expect(text).toContain(from);
  await page.fill('#pause-state', text.replace(from, to));
}

describe.skipIf(!chromiumAvailable())('studio: the graph as a navigator, in the tab (Chromium)', () => {
  const suite = useDemoSuite();

  it.each(WIDE_AND_NARROW)(
    'pauses the next run from the graph, continues with an edited state, marks counts and picks (%s)',
    { timeout: 120_000 },
    async (width, viewport) => {
      const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
      await page.waitForSelector('body[data-views="ready"]');
      await setAgent(page, await fixture('graph-navigator.yaml'));
      await page.waitForSelector(node('publish'));

      // Before any run: the node panel sets a pause for the next run, drawn on the graph.
      await page.click(node('publish'));
      await page.waitForSelector('#node-panel');
      expect(await page.textContent('#node-panel-runs')).toBe('No run is shown.');
      await page.check('#pause-before');
      await page.waitForSelector(`${node('publish')}.break-before`);
      expect(await page.textContent(`${node('publish')} > title`)).toContain('the next run pauses before it');

      expect(await runAgentInPage(page)).toBe('interrupted');
      expect(await page.textContent('#stop-reason')).toBe('interrupt_before');
      // The pause point, the loop counts; a node not reached by a paused run is pending, not "did not run".
      await page.waitForSelector(`${node('publish')}.paused`);
      expect(await page.textContent(`${node('publish')} .node-count`)).toBe('paused before');
      expect(await page.textContent(`${node('draft')} .node-count`)).toBe('×3');
      expect(await page.textContent(`${node('draft')} > title`)).toBe('draft (llm.call) — ran 3 times');
      expect(await page.getAttribute(node('escalate'), 'class')).not.toContain('not-run');

      // The state at the pause, edited; a key taken out is refused; then the run goes on with it.
      await page.waitForSelector('#pause-editor');
      expect(await page.textContent('#pause-editor-heading')).toContain('Paused before publish');
      const original = await page.inputValue('#pause-state');
      await page.fill('#pause-state', '{}');
      await page.click('#pause-continue');
      expect(await page.textContent('#pause-state-error')).toContain('cannot be taken out');
      await page.fill('#pause-state', original);
      await editPausedState(page, 'Draft three.', 'An edited draft.');
      await screenshot(page, `studio-graph-pause-${width}`);
      await saveSpan(page, '#graph', '#pause-editor', `studio-graph-pause-${width}-part`);
      await page.click('#pause-continue');
      expect(await waitForEnd(page)).toBe('completed');
      expect(await page.textContent('#final-state')).toContain('"published": "An edited draft."');
      expect(await page.isVisible('#pause-editor')).toBe(false);

      // A finished run: the node it never reached is drawn apart from the ones that ran.
      await page.waitForSelector(`${node('escalate')}.not-run`);
      expect(await page.textContent(`${node('escalate')} > title`)).toContain('did not run');
      expect(await page.textContent(`${node('check')} .node-count`)).toBe('×3');
      expect(await page.getAttribute(node('publish'), 'data-state')).toBe('visited');

      // Picking `draft` (by keyboard) marks its items in the timeline and selects its last run.
      await page.focus(node('draft'));
      await page.keyboard.press('Enter');
      await page.waitForSelector(`${node('draft')}.selected[aria-pressed="true"]`);
      expect(await page.textContent('#node-panel-runs')).toContain('It ran 3 times with 3 model calls');
      await page.waitForSelector('#timeline-focus');
      // Three node runs and three model calls of `draft`.
      expect(await page.textContent('#timeline-focus')).toContain('6 items of node draft marked');
      expect(await page.locator('#timeline .tl-row.tl-match').count()).toBe(6);
      expect(await page.textContent('#timeline-detail h4')).toBe('node draft');
      expect(await page.textContent('#state-diff')).toContain('Draft three.');
      await screenshot(page, `studio-graph-nav-${width}`);
      await saveSpan(page, '#graph', 'section.section-timeline', `studio-graph-nav-${width}-part`);
      // Picking it again lets it go.
      await page.click(node('draft'));
      await page.waitForSelector('#node-panel', { state: 'detached' });
      expect(await page.locator('#timeline .tl-row.tl-match').count()).toBe(0);
      if (width === 'wide') expect(await seriousViolations(page)).toEqual([]);
      else expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await context.close();
    },
  );
});

describe.skipIf(!chromiumAvailable())('studio: the graph as a navigator, in server mode (Chromium)', () => {
  let browser: Browser;
  let server: RunningServer;

  beforeAll(async () => {
    await ensureBuilt();
    server = await serve({
      port: 0,
      agentsDir: path.join(ROOT, 'tests/browser/fixtures/server-agents'),
      traceDir: mkdtempSync(path.join(tmpdir(), 'tea-studio-nav-')),
      webDemoDir: DIST,
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('refuses pauses for the next run (the run route takes only input) and continues a pause with the state edited', {
    timeout: 90_000,
  }, async () => {
    const { context, page } = await openDemo(browser, `${server.url}/`);
    await page.waitForFunction(() =>
      [...(document.querySelector<HTMLSelectElement>('#server-agent')?.options ?? [])].some(
        (option) => option.value === 'server-review',
      ),
    );
    await page.selectOption('#server-agent', 'server-review');
    await page.waitForSelector(node('publish'));
    await page.click(node('publish'));
    await page.waitForSelector('#node-panel');
    expect(await page.isDisabled('#pause-before')).toBe(true);
    expect(await page.textContent('#next-run-pauses-note')).toContain('takes no pauses');

    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.waitForSelector(`${node('publish')}.paused`);
    await page.waitForSelector('#pause-continue');
    await editPausedState(page, 'A draft about oolong.', 'An edited line about oolong.');
    await screenshot(page, 'studio-graph-pause-server');
    await page.click('#pause-continue');
    expect(await waitForEnd(page)).toBe('completed');
    // The server merged the update before the run went on: its final state has the edit.
    expect(await page.textContent('#final-state')).toContain('An edited line about oolong.');
    await context.close();
  });
});
