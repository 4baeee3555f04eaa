// Accessibility checked by a machine on the screens studio-a11y.test.ts does not reach (issue 15,
// point 8): axe-core finds no serious or critical violation on the page at 375 px, the editor
// with every problem marked, the history with an import error and an empty filter, the "run from
// here" state editor with its error, the delete and tool-approval dialogs (Enter on them keeps the run / denies), and, against a `tea-edge serve` started here, a server run
// with its timeline and a comparison of two server runs; the settings with a tested model server
// and with nothing listening. Every control reached with Tab shows a
// focus outline.
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
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

/**
 * Presses Tab up to `limit` times from the top of the page; returns each control that got focus
 * without a visible indicator (no outline and no box shadow).
 */
async function focusWithoutOutline(page: Page, limit: number): Promise<{ reached: number; bare: string[] }> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const bare: string[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < limit; index++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      if (!element || element === document.body) return undefined;
      // The code editor's focus is drawn on its frame (CodeMirror's content has none of its own).
      const style = getComputedStyle(element.closest('.cm-editor') ?? element);
      const outlined = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
      const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${element.className && typeof element.className === 'string' ? `.${element.className.split(' ')[0]}` : ''}`;
      return { key: name, visible: outlined || style.boxShadow !== 'none' };
    });
    if (!focused) continue;
    seen.add(focused.key);
    if (!focused.visible) bare.push(`${focused.key} (Tab ${index + 1})`);
  }
  return { reached: seen.size, bare };
}

describe.skipIf(!chromiumAvailable())('studio accessibility, more screens (axe-core, Chromium)', () => {
  const suite = useDemoSuite();
  let server: RunningServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    mock = await startMockOpenAI({ models: ['mock-model'] });
    server = await serve({
      port: 0,
      agentsDir: path.join(ROOT, 'tests/browser/fixtures/server-agents'),
      traceDir: mkdtempSync(path.join(tmpdir(), 'tea-a11y-screens-')),
      webDemoDir: DIST,
      app: { llm: { overrides: { provider: 'openai-compatible', api_base: mock.url, model: 'mock-model' } } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('tab mode: 375 px, the editor with problems, the history with an import error, the run-from-here editor; focus always visible', {
    timeout: 90_000,
  }, async () => {
    const narrow = await openDemo(suite.browser, suite.server.url, undefined, { width: 375, height: 800 });
    await expectClean(narrow.page, 'home at 375 px');
    await narrow.context.close();

    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await setAgent(page, await fixture('two-problems.yaml'));
    await page.waitForFunction(() => document.querySelectorAll('#problems li').length >= 2);
    await expectClean(page, 'editor with problems');
    await screenshot(page, 'studio-a11y-editor-problems', false);

    await setAgent(page, await fixture('two-steps.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    await page.locator('#timeline .tl-item[data-kind="node"]', { hasText: 'pick' }).click();
    await page.click('#run-from-here');
    await page.fill('#run-from-state', '{ not json');
    await page.click('#run-from-start');
    await page.waitForSelector('#run-from-error:not(:empty)');
    await expectClean(page, 'run-from-here editor with an error');

    const broken = path.join(mkdtempSync(path.join(tmpdir(), 'tea-a11y-import-')), 'broken.ndjson');
    await writeFile(broken, 'not json\n');
    await page.setInputFiles('#import-file', broken);
    await page.waitForSelector('#import-error:not(:empty)');
    await page.fill('#history-search', 'no-such-agent');
    await page.waitForSelector('#history-list li.muted');
    await expectClean(page, 'history with an import error and no match');
    await page.fill('#history-search', '');

    // Delete opens on Cancel: Enter straight away keeps the run.
    const rows = page.locator('#history-list .history-row');
    const count = await rows.count();
    expect(count).toBeGreaterThan(0);
    await rows.first().locator('.delete-run').click();
    await page.waitForSelector('#delete-dialog[open]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('delete-cancel');
    // Opened by mouse, yet the focused safe choice is outlined (what Enter will do is visible).
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
    await screenshot(page, 'studio-delete-dialog', false);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#delete-dialog', { state: 'detached' });
    expect(await rows.count()).toBe(count);

    // The tool-approval dialog opens on Deny: Enter straight away denies the call.
    await setAgent(page, await fixture('react-confirm.yaml'));
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.waitForSelector('#confirm-dialog[open]');
    expect(
      await page.evaluate(() => [document.activeElement?.id, getComputedStyle(document.activeElement!).outlineStyle]),
    ).toEqual(['deny-button', 'solid']);
    await screenshot(page, 'studio-approval-dialog', false);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#run-status[data-status="completed"]');
    expect(await page.textContent('#final-state')).toContain('it was not saved');

    const { reached, bare } = await focusWithoutOutline(page, 60);
    expect(reached).toBeGreaterThan(15);
    expect(bare).toEqual([]);
    await context.close();
  });

  it('settings: a tested model server, and one with nothing listening', { timeout: 60_000 }, async () => {
    // A server that leaves tool calls as text: Test connection says so, with what to set.
    mock.setReplies([
      'ok',
      '{"answer": "yes"}',
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    ]);
    const { context, page } = await openDemo(suite.browser, suite.server.url, {
      preset: 'custom',
      api_base: mock.url,
      model: 'mock-model',
    });
    await page.click('#probe-button');
    await page.waitForFunction(
      () => (document.querySelector('#probe-result')?.textContent ?? '').includes('mock-model'),
      undefined,
      { timeout: 20_000 },
    );
    expect(await page.textContent('#probe-result .server-facts')).toContain('Tool calls arrive as text');
    expect(await page.textContent('#probe-result')).toContain('--tool-call-parser');
    await expectClean(page, 'settings with a tested server');
    await page
      .locator('section.settings')
      .screenshot({ path: path.join(ROOT, 'test-artifacts/screenshots/studio-a11y-settings.png') });
    // Port 9 (discard) on the loopback: nothing listens there in the test machines.
    await page.fill('#model-url', 'http://127.0.0.1:9/v1');
    await page.click('#probe-button');
    await page.waitForSelector('#probe-down', { timeout: 20_000 });
    await expectClean(page, 'settings with nothing listening');
    await context.close();
  });

  it('server mode: a run with its timeline, and two server runs compared', { timeout: 90_000 }, async () => {
    mock.setReplies(['Sencha is steamed.', 'Gyokuro is shaded.']);
    const { context, page } = await openDemo(suite.browser, `${server.url}/`);
    await page.waitForFunction(() =>
      [...(document.querySelector<HTMLSelectElement>('#server-agent')?.options ?? [])].some(
        (option) => option.value === 'server-stream',
      ),
    );
    await page.selectOption('#server-agent', 'server-stream');
    await page.waitForSelector('svg.graph g.node[data-node="talk"]');
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await runAgentInPage(page)).toBe('completed');
    await page.locator('#timeline .tl-item[data-kind="node"]').first().click();
    await expectClean(page, 'server run with timeline');

    await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length >= 2);
    const rows = page.locator('#history-list .history-row');
    await rows.nth(1).locator('.pick-run').click();
    await rows.nth(0).locator('.pick-run').click();
    await page.click('#compare-button');
    const view = page.locator('#compare-view');
    await view.waitFor();
    expect(await view.locator('#state-diff tr.diff-changed').first().textContent()).toContain('Gyokuro is shaded.');
    await expectClean(page, 'server comparison');
    await view.screenshot({ path: path.join(ROOT, 'test-artifacts/screenshots/studio-server-compare.png') });
    await context.close();
  });
});
