// The web demo in headless Chromium: the app itself. First load (scripted model by default,
// examples, lazy editor, inline validation), history that survives a reload (open, export,
// delete, import), offline reload through the service worker, a narrow screen, keyboard and
// labels. Also measures time to interactive and records the bundle sizes for the bench.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, screenshot, setAgent, waitReady } from './support/demo-page.js';
import { DIST, serveDemo, type DemoServer } from './support/serve-demo.js';
import { recordBench } from './support/bench-record.js';

/** True when nothing answers on the local model ports (then the scripted model must be the default). */
async function noLocalModelServer(): Promise<boolean> {
  const answers = await Promise.all(
    ['http://localhost:11434/v1/models', 'http://localhost:1234/v1/models', 'http://localhost:8080/v1/models'].map(
      (url) =>
        fetch(url, { signal: AbortSignal.timeout(1000) }).then(
          (response) => response.ok,
          () => false,
        ),
    ),
  );
  return answers.every((answer) => !answer);
}

describe.skipIf(!chromiumAvailable())('web demo app (Chromium)', () => {
  let browser: Browser;
  let server: DemoServer;

  beforeAll(async () => {
    [server, browser] = await Promise.all([serveDemo(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('opens with the scripted demo model when no local server answers, with examples, graph and editor', async () => {
    const { context, page } = await openDemo(browser, server.url, null);
    if (await noLocalModelServer()) {
      await page.waitForFunction(
        () => (document.querySelector('#probe-result')?.textContent ?? '').includes('Nothing answered'),
        undefined,
        { timeout: 10_000 },
      );
      expect(await page.textContent('#model-badge')).toBe('Scripted demo model');
    }
    expect(await page.title()).toContain('tea-edge');
    expect(await page.locator('#example-select option').count()).toBeGreaterThanOrEqual(1);
    expect(await page.locator('.cm-editor').count()).toBe(1);
    await page.waitForSelector('svg.graph g.node', { timeout: 10_000 });
    await screenshot(page, 'home');
    await context.close();
  });

  it('shows validation errors inline at their line as you type', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, 'name: broken\nnodes:\n  - name: a\n    goto: nowhere\n');
    await page.waitForSelector('.cm-lintRange-error, .cm-lint-marker-error', { timeout: 10_000 });
    expect(await page.textContent('#problems')).toMatch(/INVALID_AGENT|UNKNOWN/);
    expect(await page.textContent('#problems')).toMatch(/line \d+/);
    // The graph of a broken agent still draws (the unknown target is left out).
    await page.waitForSelector('svg.graph g.node[data-node="a"]');
    expect(await page.innerHTML('#graph')).not.toContain('NaN');
    await screenshot(page, 'editor-validation', false);
    // Key completion from the agent JSON Schema: node keys inside a node.
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('    ou');
    await page.keyboard.press('Control+Space');
    await page.waitForSelector('.cm-tooltip-autocomplete');
    expect(await page.textContent('.cm-tooltip-autocomplete')).toContain('output');
    await context.close();
  });

  it('answers an agent without scripted answers with the labelled demo model notice', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('no-script.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('[scripted demo model]');
    await context.close();
  });

  it('keeps runs in IndexedDB across a reload: open, export, delete, import', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('scripted-hello.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await runAgentInPage(page)).toBe('completed');
    await page.reload();
    await waitReady(page);
    await page.waitForSelector('#history-list .history-row');
    expect(await page.locator('#history-list .history-row').count()).toBe(2);
    expect(await page.textContent('#history-list')).toContain('browser-scripted-hello');

    await page.locator('#history-list .open-run').first().click();
    await page.waitForSelector('#final-state');
    expect(await page.textContent('#final-state')).toContain('Hello from the scripted model');
    expect(await page.textContent('#run-status')).toContain('from history');
    await screenshot(page, 'history');

    const downloadPromise = page.waitForEvent('download');
    await page.locator('#history-list .export-run').first().click();
    const download = await downloadPromise;
    const exported = path.join(tmpdir(), `tea-exported-${process.pid}-${Date.now()}.ndjson`);
    await download.saveAs(exported);
    const lines = (await readFile(exported, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0].type).toBe('run_start');
    expect(lines.at(-1).type).toBe('done');

    // Delete asks first, with Cancel (the safe choice) focused; Cancel keeps the run.
    await page.locator('#history-list .delete-run').first().click();
    await page.waitForSelector('#delete-dialog[open]');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('delete-cancel');
    await page.click('#delete-cancel');
    expect(await page.locator('#history-list .history-row').count()).toBe(2);
    await page.locator('#history-list .delete-run').first().click();
    await page.click('#delete-confirm');
    await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length === 1);
    await page.setInputFiles('#import-file', exported);
    await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length === 2);
    expect(await page.textContent('#run-status')).toContain('imported');
    await context.close();
  });

  it('loads and runs a scripted agent offline after one visit', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await context.setOffline(true);
    await page.reload();
    await waitReady(page);
    await setAgent(page, await fixture('scripted-hello.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('offline');
    await screenshot(page, 'offline');
    await context.setOffline(false);
    await context.close();
  });

  it('works at 375 px wide, by keyboard, with every control labelled', async () => {
    const { context, page } = await openDemo(browser, server.url, { preset: 'scripted' }, { width: 375, height: 800 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea, button')]
        .filter((control) => !(control as HTMLElement).hidden && !(control as HTMLElement).closest('[hidden]'))
        .filter((control) => {
          const labels = (control as HTMLInputElement).labels;
          return (
            !(labels && labels.length > 0) && !control.getAttribute('aria-label') && !(control.textContent ?? '').trim()
          );
        })
        .map((control) => control.outerHTML.slice(0, 80)),
    );
    expect(unlabelled).toEqual([]);
    await setAgent(page, await fixture('scripted-hello.yaml'));
    // Ctrl+Enter runs from anywhere; Tab reaches the Run button.
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('#run-status[data-status="completed"]');
    await page.focus('#run-input');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('run-button');
    await screenshot(page, 'mobile-375');
    await context.close();
  });

  it('measures time to interactive and records bundle sizes', async () => {
    const context = await browser.newContext();
    await context.addInitScript(() =>
      localStorage.setItem(
        'tea-edge.model-settings',
        JSON.stringify({ preset: 'scripted', api_base: '', model: '', api_key: '' }),
      ),
    );
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForSelector('body[data-ready="true"]');
    // Marks set by the page itself: UI wired (data-ready), engine worker answering (data-engine),
    // editor mounted (data-editor); read from the page clock, from navigation start.
    await page.waitForSelector('body[data-engine="ready"]');
    await page.waitForSelector('body[data-editor="ready"]');
    const marks = await page.evaluate(() => {
      const at = (name: string) => performance.getEntriesByName(name)[0]?.startTime ?? -1;
      return { ui: at('tea-ui-ready'), engine: at('tea-engine-ready'), editor: at('tea-editor-ready') };
    });
    await recordBench({
      name: 'web demo time to interactive: UI (headless Chromium, cold, localhost)',
      value: Math.round(marks.ui),
      unit: 'ms',
    });
    await recordBench({
      name: 'web demo time to interactive: engine worker ready',
      value: Math.round(marks.engine),
      unit: 'ms',
    });
    await recordBench({ name: 'web demo time to editor ready', value: Math.round(marks.editor), unit: 'ms' });
    expect(marks.ui).toBeGreaterThan(0);
    expect(marks.engine).toBeGreaterThan(0);
    const report = JSON.parse(await readFile(path.join(DIST, 'build-report.json'), 'utf8')) as Record<string, number>;
    await recordBench({
      name: 'web demo first-load JS gzipped (engine worker + UI, no editor)',
      value: report.first_load_js_gzip_bytes!,
      unit: 'bytes',
      baseline_value: 200 * 1024,
      ratio: report.first_load_js_gzip_bytes! / (200 * 1024),
    });
    await recordBench({
      name: 'web demo editor chunk gzipped (lazy)',
      value: report.editor_js_gzip_bytes!,
      unit: 'bytes',
    });
    expect(report.first_load_js_gzip_bytes).toBeLessThanOrEqual(200 * 1024);
    expect(report.editor_js_gzip_bytes).toBeGreaterThan(0);
    // No code generation from strings in anything the demo ships.
    for (const file of Object.keys(report.files_gzip_bytes as unknown as Record<string, number>).filter((name) =>
      name.endsWith('.js'),
    )) {
      const text = await readFile(path.join(DIST, file), 'utf8');
      expect(/\beval\(|new Function\(/.test(text), file).toBe(false);
    }
    await context.close();
  });
});
