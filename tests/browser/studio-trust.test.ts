// The studio tells the truth across pauses and mid-stream (issue 27, points 1, 4 and 5), in
// headless Chromium, each screen saved at 1280 px and at 375 px:
// - after a tool approval the timeline shows the node paused at the pause, the wait as its own
//   item with the answer (approved, by which role, when), and the resumed part completed;
// - a streaming call says how much has arrived; a cancelled call is "cancelled", not a red failure;
// - the editor flags an unknown key under `with:` and Run stays disabled while the agent has
//   load problems;
// - in server mode (points 2 and 3), switching to the tab right after load never shows the
//   server's runs or graph as the tab's; the tab's model settings are not shown, probed or
//   offered for a server run's failure, and the status line names the model the run used.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { chromiumAvailable } from './support/chromium.js';
import { DIST, ROOT } from './support/serve-demo.js';
import {
  fixture,
  openDemo,
  screenshot,
  SCREENSHOTS,
  setAgent,
  startRun,
  waitForEnd,
  WIDE_AND_NARROW,
} from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { seriousViolations } from './support/axe.js';

/** The page at 1280 px; at 375 px only the part under test (a whole narrow page is too tall to read). */
async function shot(page: Page, name: string, part: string): Promise<void> {
  // The part alone too (the README's pictures).
  if ((page.viewportSize()?.width ?? 1280) >= 1000) {
    await page
      .locator(part)
      .first()
      .screenshot({ path: `${SCREENSHOTS}/${name}-part.png` });
    return screenshot(page, name);
  }
  await screenshot(page, `${name}-top`, false);
  await page
    .locator(part)
    .first()
    .screenshot({ path: `${SCREENSHOTS}/${name}.png` });
}

/** The timeline's rows as `kind:label:figures`. */
function rows(page: Page): Promise<string[]> {
  return page.$$eval('#timeline .tl-item', (items) =>
    items.map(
      (item) =>
        `${item.getAttribute('data-kind')}|${item.querySelector('.tl-label')?.textContent?.trim()}|${item.querySelector('.tl-figures')?.textContent?.trim()}`,
    ),
  );
}

describe.skipIf(!chromiumAvailable())('studio: true across pauses and streams (Chromium)', () => {
  const suite = useDemoSuite();

  it.each(WIDE_AND_NARROW)(
    'after a tool approval the timeline shows the pause, the answer and the resumed node (%s)',
    async (name, viewport) => {
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
      expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    },
  );

  it.each(WIDE_AND_NARROW)(
    'a streaming call shows what arrived; cancelled, it is cancelled and not failed (%s)',
    async (name, viewport) => {
      const mock = await startMockOpenAI({
        models: ['mock-model'],
        replies: ['Sencha is a steamed green tea from Japan with a grassy, sweet taste. '.repeat(6)],
        chunkSize: 6,
        chunkDelayMs: 120,
      });
      try {
        const { context, page } = await openDemo(
          suite.browser,
          suite.server.url,
          { preset: 'custom', api_base: mock.url, model: 'mock-model' },
          viewport,
        );
        await setAgent(page, await fixture('slow-stream.yaml'));
        await startRun(page);
        await page.waitForFunction(
          () => /characters received/.test(document.querySelector('#model-calls')?.textContent ?? ''),
          undefined,
          { timeout: 30_000 },
        );
        await page.waitForFunction(
          () =>
            /streaming · \d+ chars in \d+ chunks/.test(
              document.querySelector('#timeline .tl-item[data-kind="model"]')?.textContent ?? '',
            ),
          undefined,
          { timeout: 30_000 },
        );
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
        const colour = await page.$eval(
          '#timeline .kind-model .tl-bar',
          (bar) => getComputedStyle(bar).backgroundColor,
        );
        const failed = await page.evaluate(() => getComputedStyle(document.body).getPropertyValue('--bad').trim());
        expect(colour).not.toBe(failed);
        expect(colour).not.toMatch(/rgb\(1[5-9]\d, \d{1,2}, \d{1,2}\)|rgb\(2\d\d, \d{1,2}, \d{1,2}\)/);
        await shot(page, `studio-cancelled-call-${name}`, 'section.section-timeline');
        await context.close();
      } finally {
        await mock.close();
      }
    },
  );

  it.each(WIDE_AND_NARROW)(
    'an unknown key under with: is flagged and Run stays off; Ctrl+Enter right after typing records no run (%s)',
    async (name, viewport) => {
      const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
      const good = await fixture('scripted-hello.yaml');
      await setAgent(page, good);
      await page.waitForSelector('#run-button:not([disabled])');
      const typo =
        'name: promt-typo\nnodes:\n  - name: ask\n    uses: llm.call\n    with:\n      promt: "hello"\n    output: answer\n';
      await setAgent(page, typo);
      // Before the editor's own validation came back: the run checks the text first.
      await page.keyboard.press('Control+Enter');
      await page.waitForFunction(
        () => /promt/.test(document.querySelector('#problems')?.textContent ?? ''),
        undefined,
        { timeout: 10_000 },
      );
      expect(await page.textContent('#problems')).toMatch(
        /INVALID_PARAMS line 6:7, node ask, field promt: unknown key `promt` in the parameters of llm\.call; did you mean `prompt`\?/,
      );
      await page.waitForSelector('#run-button[disabled]');
      expect(await page.textContent('#agent-status')).toBe('1 problem found: Run is off until it is fixed.');
      await page.waitForSelector('.cm-lintRange-error');
      // No run started, none recorded.
      expect(await page.getAttribute('#run-status', 'data-run-id')).toBeNull();
      await page.waitForSelector('#history-list, #history-panel .note');
      expect(await page.locator('#history-list .history-row').count()).toBe(0);
      await shot(page, `studio-load-problem-${name}`, 'section.panel.agent');
      // Fixed, Run is on again.
      await setAgent(page, good);
      await page.waitForSelector('#run-button:not([disabled])');
      await context.close();
    },
  );
});

describe.skipIf(!chromiumAvailable())(
  'studio: server mode keeps its runs and its model apart from the tab (Chromium)',
  () => {
    const suite = useDemoSuite();
    let mock: MockOpenAI;
    let server: RunningServer;
    /** A server whose model server is down (nothing listens on port 9). */
    let broken: RunningServer;

    beforeAll(async () => {
      mock = await startMockOpenAI({ models: ['mock-model'], replies: ['Oolong.'] });
      const agentsDir = path.join(ROOT, 'tests/browser/fixtures/server-agents');
      [server, broken] = await Promise.all([
        serve({
          port: 0,
          agentsDir,
          traceDir: mkdtempSync(path.join(tmpdir(), 'tea-trust-')),
          webDemoDir: DIST,
          app: { llm: { overrides: { provider: 'openai-compatible', api_base: mock.url, model: 'mock-model' } } },
        }),
        serve({
          port: 0,
          agentsDir,
          traceDir: mkdtempSync(path.join(tmpdir(), 'tea-trust-down-')),
          webDemoDir: DIST,
          app: {
            llm: {
              overrides: { provider: 'openai-compatible', api_base: 'http://127.0.0.1:9/v1', model: 'down-model' },
            },
          },
        }),
      ]);
      // One run in the server's history.
      const response = await fetch(`${server.url}/agents/server-stream/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: {} }),
      });
      expect(response.ok).toBe(true);
    });
    afterAll(async () => {
      await server?.close();
      await broken?.close();
      await mock?.close();
    });

    it.each(WIDE_AND_NARROW)(
      "switching to the tab right after load shows the tab's runs and the editor's graph, whatever answers late (%s)",
      async (name, viewport) => {
        const context = await suite.browser.newContext({ viewport: viewport ?? { width: 1280, height: 900 } });
        await context.addInitScript(() =>
          localStorage.setItem(
            'tea-edge.model-settings',
            JSON.stringify({ preset: 'scripted', api_base: '', model: '', api_key: '' }),
          ),
        );
        const page = await context.newPage();
        // The server's run list and agent spec answer slowly: they arrive after the switch.
        const slow = async (route: import('playwright-core').Route) => {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          await route.continue().catch(() => undefined);
        };
        await page.route((url) => url.pathname === '/runs', slow);
        await page.route((url) => url.pathname.startsWith('/agents/server-'), slow);
        await page.goto(`${server.url}/`);
        await page.waitForSelector('#server-agent');
        await page.click('#backend-tab');
        await page.waitForSelector('body[data-editor="ready"]');
        // Longer than the delay: every late answer has arrived.
        await page.waitForTimeout(2500);
        expect(await page.textContent('#history-source')).toContain('this tab');
        expect(await page.locator('#history-list .history-row', { hasText: 'server-stream' }).count()).toBe(0);
        expect(await page.locator('.delete-run').count()).toBe(0);
        // The graph is the editor's agent, not the server's.
        expect(await page.locator('svg.graph g.node[data-node="talk"]').count()).toBe(0);
        const editorAgent = await page.evaluate(
          () =>
            /^name:\s*(.+)$/m.exec(
              [...document.querySelectorAll('.cm-content .cm-line')].map((line) => line.textContent).join('\n'),
            )?.[1],
        );
        expect(editorAgent).toBeTruthy();
        await page.waitForSelector('svg.graph g.node');
        expect(await page.textContent('#tagline')).toContain('running in this tab');
        await shot(page, `studio-switch-to-tab-${name}`, 'main');
        // The choice survives a reload (the late connection did not write "server" back).
        await page.unrouteAll({ behavior: 'ignoreErrors' });
        await page.reload();
        await page.waitForSelector('body[data-studio="ready"]');
        expect(await page.isChecked('#backend-tab')).toBe(true);
        await context.close();
      },
    );

    it.each(WIDE_AND_NARROW)(
      "a server run that could not reach its model points to the server's settings, not the tab's; nothing probes localhost (%s)",
      async (name, viewport) => {
        const context = await suite.browser.newContext({ viewport: viewport ?? { width: 1280, height: 900 } });
        const page = await context.newPage();
        const probed: string[] = [];
        page.on('request', (request) => {
          if (/localhost:(11434|1234|8080)/.test(request.url())) probed.push(request.url());
        });
        // No model settings saved: a page in the tab would look for local model servers.
        await page.goto(`${broken.url}/`);
        await page.waitForSelector('#server-agent');
        await page.waitForSelector('body[data-studio="ready"]');
        expect(await page.isVisible('#settings-panel')).toBe(false);
        expect(await page.isVisible('#settings-server-note')).toBe(true);
        expect(await page.textContent('#model-badge')).toBe('Models of the server');
        await page.selectOption('#server-agent', 'server-stream');
        await page.waitForSelector('svg.graph g.node[data-node="talk"]');
        await page.click('#run-button');
        await page.waitForSelector('#run-status[data-status="failed"]', { timeout: 60_000 });
        await page.waitForSelector('#run-outcome');
        expect(await page.textContent('#run-outcome')).toContain('LLM_UNAVAILABLE');
        expect(await page.locator('#outcome-probe').count()).toBe(0);
        expect(await page.textContent('#outcome-server-model')).toContain(
          'The tea-edge server could not reach its model server (down-model (openai-compatible))',
        );
        expect(await page.textContent('#run-models')).toBe('down-model (openai-compatible)');
        expect(await page.textContent('#model-badge')).toBe('Models of the server');
        expect(probed).toEqual([]);
        await shot(page, `studio-server-model-down-${name}`, '#run-view');
        expect(await seriousViolations(page)).toEqual([]);

        // Back in the tab, the tab's settings are shown, probed, and offered for the tab's runs.
        await page.click('#backend-tab');
        await page.waitForSelector('#settings-panel', { state: 'visible' });
        expect(await page.isVisible('#settings-server-note')).toBe(false);
        await page.waitForFunction(
          () => !/Models of the server/.test(document.querySelector('#model-badge')?.textContent ?? ''),
        );
        await context.close();
      },
    );
  },
);
