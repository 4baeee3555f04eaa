// Compare from one place (issue 27, point 11) and the history rows (point 13) in headless
// Chromium, in the tab: two runs of an agent before and after an edit, picked newest first, are
// compared as A (older) → B (newer) across the page's width, with the diff of the agent files, the
// steps aligned (the steps only the older run made, the update that differs) and the final states;
// each history row says its duration, tokens and model, and its status once.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, SCREENSHOTS, setAgent, WIDE_AND_NARROW } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { seriousViolations } from './support/axe.js';

describe.skipIf(!chromiumAvailable())('studio compare (Chromium)', () => {
  const suite = useDemoSuite();

  it.each(WIDE_AND_NARROW)(
    'compares the older run A with the newer B: agent file diff, aligned steps (%s)',
    { timeout: 90_000 },
    async (width, viewport) => {
      const { context, page } = await openDemo(suite.browser, suite.server.url, { preset: 'scripted' }, viewport);
      const agent = await fixture('graph-navigator.yaml');
      await setAgent(page, agent);
      expect(await runAgentInPage(page)).toBe('completed');
      const older = await page.getAttribute('#run-status', 'data-run-id');
      // The edit: two drafts instead of three.
      await setAgent(page, agent.replace('state.tries < 3', 'state.tries < 2'));
      expect(await runAgentInPage(page)).toBe('completed');
      const newer = await page.getAttribute('#run-status', 'data-run-id');
      await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length === 2);

      // History rows: duration, tokens, model; the status once (the badge).
      const olderRow = page.locator(`#history-list .history-row[data-run-id="${older}"]`);
      expect(await olderRow.locator('.history-label').textContent()).toMatch(/ · \d+ ms · 21 tok · scripted$/);
      expect(
        await page.locator(`#history-list .history-row[data-run-id="${newer}"] .history-label`).textContent(),
      ).toMatch(/ · 14 tok · scripted$/);
      expect(await olderRow.textContent()).toMatch(/^completed[\s\S]*$/);
      expect((await olderRow.textContent())!.match(/completed/g)).toHaveLength(1);

      // Picked newest first: A is still the older run.
      await page.locator(`#history-list .history-row[data-run-id="${newer}"] .pick-run`).click();
      await olderRow.locator('.pick-run').click();
      await page.click('#compare-button');
      const view = page.locator('#compare-view');
      await view.waitFor();
      expect(await page.textContent('#compare-heading')).toBe('Comparison: A (older) → B (newer)');
      const listed = await page.locator('#compare-runs li').allTextContents();
      expect(listed[0]).toContain(`A, older: browser-graph-navigator · run ${older!.slice(0, 8)}`);
      expect(listed[1]).toContain(`B, newer: browser-graph-navigator · run ${newer!.slice(0, 8)}`);
      expect(await view.locator('tr', { hasText: 'Model calls' }).first().textContent()).toMatch(/Model calls32-1/);

      // The agent files: the one line that changed.
      const fileDiff = page.locator('#compare-agent-file');
      expect(await fileDiff.locator('.diff-line.removed').allTextContents()).toEqual([
        '−       - { if: "state.tries < 3", to: draft }',
      ]);
      expect(await fileDiff.locator('.diff-line.added').allTextContents()).toEqual([
        '+       - { if: "state.tries < 2", to: draft }',
      ]);
      // Long unchanged stretches are folded to one line each, three lines of context kept.
      expect(await fileDiff.locator('.diff-line.same').allTextContents()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ {2}… 18 unchanged lines$/),
          expect.stringMatching(/^ {2}… 8 unchanged lines$/),
        ]),
      );

      // The steps aligned: five in both, the older run's third draft and check only in A; the last
      // publish wrote another draft.
      const steps = page.locator('#compare-steps tbody tr');
      expect(await steps.count()).toBe(7);
      expect(await page.locator('#compare-steps tr.step-only-in-A').count()).toBe(2);
      expect(await page.locator('#compare-steps tr.step-only-in-B').count()).toBe(0);
      expect(await steps.last().textContent()).toMatch(/publish.*publish.*update differs/);

      // Wide enough to read: the comparison takes the page's width.
      const box = (await view.boundingBox())!;
      expect(box.width).toBeGreaterThan((viewport?.width ?? 1280) * 0.8);
      await view.screenshot({ path: path.join(SCREENSHOTS, `studio-compare-aligned-${width}.png`) });
      if (width === 'wide') expect(await seriousViolations(page)).toEqual([]);
      else expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await context.close();
    },
  );
});
