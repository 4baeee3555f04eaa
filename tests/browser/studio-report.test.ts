// The offline HTML report (issue 15, point 6, last bullet) and the comparison link (point 5) in
// headless Chromium. A run whose input and model answer hold strings that break naive embedding
// is saved from the run view; the file opens from file:// in a context with the network off and
// every request recorded: it renders the outcome, the steps and the final state, its own script
// runs (and only it), no request leaves, axe finds nothing serious, and the events it embeds come
// back unchanged, both as its NDJSON download and when the studio imports the report.
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, screenshot, setAgent, waitReady } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';
import { seriousViolations } from './support/axe.js';
import { readReportData } from '../../web-demo/report-data.js';
import { openReportOffline } from './support/offline-report.js';

const BREAKOUT = '</script><script>window.__pwned = 1</script>';
const HOSTILE_INPUT = {
  text: BREAKOUT,
  comment: '<!--<script>window.__pwned = 2//',
  upper: '</SCRIPT ><img src=x onerror="window.__pwned=3">',
  separators: 'a\u2028b\u2029c',
};

describe.skipIf(!chromiumAvailable())('studio HTML report and comparison link (Chromium)', () => {
  const suite = useDemoSuite();

  it('saves a run with hostile strings as a report that renders offline from file:// and imports back', {
    timeout: 90_000,
  }, async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    // The scripted model answers with a script-closing string, so the final state holds one too.
    await setAgent(
      page,
      (await fixture('scripted-hello.yaml')).replace('"Hello from the scripted model, offline."', `'${BREAKOUT}'`),
    );
    await page.fill('#run-input', JSON.stringify(HOSTILE_INPUT));
    expect(await runAgentInPage(page)).toBe('completed');
    const runId = (await page.getAttribute('#run-status', 'data-run-id'))!;

    await page.locator('#save-report').scrollIntoViewIfNeeded();
    await screenshot(page, 'studio-run-save-report', false);
    const saved = page.waitForEvent('download');
    await page.click('#save-report');
    const download = await saved;
    expect(download.suggestedFilename()).toBe(`run-${runId}.html`);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-report-')), download.suggestedFilename());
    await download.saveAs(file);
    const html = await readFile(file, 'utf8');
    const data = readReportData(html);
    expect(data.ok).toBe(true);
    const events = data.ok ? data.data.events : [];
    expect(events[0]?.data).toMatchObject({ input: HOSTILE_INPUT });
    expect(JSON.stringify(events.at(-1)?.data)).toContain(JSON.stringify(BREAKOUT));

    // Offline, from file://, every request recorded and any http(s) one refused.
    const { context: offline, page: report, url, requests, violations } = await openReportOffline(suite.browser, file);
    expect(await report.getAttribute('html', 'data-events')).toBe(String(events.length));
    expect(await report.textContent('h1')).toContain('browser-scripted-hello');
    expect(await report.textContent('h1')).toContain('completed');
    expect(await report.locator('ol.steps > li').count()).toBe(1);
    expect(await report.textContent('ol.steps')).toContain('greet');
    // The hostile strings are text on the page, not markup: none of them ran.
    expect(await report.locator('pre', { hasText: 'window.__pwned = 1' }).count()).toBeGreaterThan(0);
    expect(await report.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await report.evaluate(() => [document.scripts.length, document.images.length])).toEqual([2, 0]);
    expect(await violations()).toEqual([]);
    expect(requests).toEqual([url]);
    await screenshot(report, 'studio-report-offline');

    // Its own script offers the embedded events as NDJSON, unchanged.
    const ndjson = report.waitForEvent('download');
    await report.click('#save-ndjson');
    const lines = (await readFile((await (await ndjson).path())!, 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(events);
    await offline.close();

    // axe is a script the report's policy refuses (as it should): checked in a context that
    // bypasses the policy.
    const checking = await suite.browser.newContext({ offline: true, bypassCSP: true });
    const checked = await checking.newPage();
    await checked.goto(url);
    expect(await seriousViolations(checked)).toEqual([]);
    await checking.close();

    // The studio imports the report back as the same run.
    await page.setInputFiles('#import-file', file);
    await page.waitForFunction(() =>
      (document.querySelector('#run-status')?.textContent ?? '').includes('imported from'),
    );
    expect(await page.getAttribute('#run-status', 'data-run-id')).toBe(runId);
    expect(await page.textContent('#import-error')).toBe('');
    expect(await page.textContent('#final-state')).toContain(BREAKOUT);
    await context.close();
  });

  it('puts a comparison in the address, and opens it again from there after a reload', {
    timeout: 60_000,
  }, async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    const agent = await fixture('scripted-hello.yaml');
    await setAgent(page, agent);
    expect(await runAgentInPage(page)).toBe('completed');
    await setAgent(page, agent.replace('Hello from the scripted model, offline.', 'A second answer, after an edit.'));
    expect(await runAgentInPage(page)).toBe('completed');
    const rows = page.locator('#history-list .history-row');
    await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length === 2);
    const ids = await rows.evaluateAll((items) => items.map((item) => item.getAttribute('data-run-id')!));
    await rows.nth(1).locator('.pick-run').click();
    await rows.nth(0).locator('.pick-run').click();
    await page.click('#compare-button');
    await page.waitForSelector('#compare-view');
    expect(await page.evaluate(() => location.hash)).toBe(`#compare=${ids[1]},${ids[0]}`);
    expect(await page.locator('#compare-view tr', { hasText: 'Steps (node runs)' }).textContent()).toMatch(
      /Steps \(node runs\)110/,
    );

    await page.reload();
    await waitReady(page);
    const view = page.locator('#compare-view');
    await view.waitFor();
    // A is the older run (listed second, picked first).
    expect(await view.locator('.compare-table:not(.compare-steps) thead').textContent()).toContain(
      `A: browser-scripted-hello · ${ids[1]!.slice(0, 8)}`,
    );
    expect(await view.locator('#state-diff tr.diff-changed').textContent()).toContain(
      'A second answer, after an edit.',
    );
    await view.scrollIntoViewIfNeeded();
    await screenshot(page, 'studio-compare-from-link', false);
    await page.click('#compare-close');
    expect(await page.evaluate(() => location.hash)).toBe('');
    await context.close();
  });
});
