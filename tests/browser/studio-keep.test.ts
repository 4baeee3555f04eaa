// Studio "keep the work" and "compare" (issue 15, points 6 and 5) in headless Chromium, in the
// tab: two runs of an agent before and after an edit compared side by side; a run saved as one
// HTML report that opens offline with scripts off; an import error shown on screen; history
// search and status filter.
import { readFile, writeFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumAvailable } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, SCREENSHOTS, setAgent, waitReady } from './support/demo-page.js';
import { useDemoSuite } from './support/demo-suite.js';

describe.skipIf(!chromiumAvailable())('studio keep and compare (Chromium)', () => {
  const suite = useDemoSuite();

  it('compares a run before and after an edit, and saves a run as an offline HTML report', {
    timeout: 60_000,
  }, async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    const agent = await fixture('scripted-hello.yaml');
    await setAgent(page, agent);
    expect(await runAgentInPage(page)).toBe('completed');
    await setAgent(
      page,
      agent.replace('Hello from the scripted model, offline.', 'Good morning from the edited agent.'),
    );
    expect(await runAgentInPage(page)).toBe('completed');
    await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length === 2);

    const rows = page.locator('#history-list .history-row');
    await rows.nth(1).locator('.pick-run').click();
    expect(await page.textContent('.compare-bar')).toContain('Pick one more');
    await rows.nth(0).locator('.pick-run').click();
    await page.click('#compare-button');
    const view = page.locator('#compare-view');
    await view.waitFor();
    expect(await view.locator('tr', { hasText: 'Model calls' }).first().textContent()).toMatch(/Model calls110/);
    const changed = view.locator('#state-diff tr.diff-changed');
    expect(await changed.count()).toBe(1);
    expect(await changed.textContent()).toContain('Hello from the scripted model');
    expect(await changed.textContent()).toContain('Good morning from the edited agent');
    await view.screenshot({ path: path.join(SCREENSHOTS, 'studio-compare.png') });

    const downloadPromise = page.waitForEvent('download');
    await rows.nth(0).locator('.report-run').click();
    const download = await downloadPromise;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-report-')), 'report.html');
    await download.saveAs(file);
    const html = await readFile(file, 'utf8');
    // No external resource; its two script elements are its data and its own (studio-report.test.ts).
    expect(html).not.toMatch(/<link|src=/i);
    // Offline, scripts off: the report is all there.
    const offline = await suite.browser.newContext({ javaScriptEnabled: false, offline: true });
    const report = await offline.newPage();
    await report.goto(pathToFileURL(file).href);
    expect(await report.textContent('h1')).toContain('browser-scripted-hello');
    expect(await report.textContent('body')).toContain('Good morning from the edited agent');
    await report.screenshot({ path: path.join(SCREENSHOTS, 'studio-report.png'), fullPage: true });
    await offline.close();
    await context.close();
  });

  it('shows an import error on screen, and searches and filters the history', async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    await setAgent(page, await fixture('scripted-hello.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    await page.waitForSelector('#history-list .history-row');
    const broken = path.join(mkdtempSync(path.join(tmpdir(), 'tea-import-')), 'broken.ndjson');
    await writeFile(broken, '{"type":"run_start"}\nnot json at all\n');
    await page.setInputFiles('#import-file', broken);
    await page.waitForFunction(() =>
      (document.querySelector('#import-error')?.textContent ?? '').includes('broken.ndjson'),
    );
    expect(await page.textContent('#import-error')).toMatch(/line 1|line 2/);

    await page.fill('#history-search', 'no-such-agent');
    await page.waitForSelector('#history-list li.muted');
    expect(await page.textContent('#history-list')).toContain('No run matches');
    await page.fill('#history-search', 'scripted-hello');
    expect(await page.locator('#history-list .history-row').count()).toBe(1);
    await page.selectOption('#history-status', 'failed');
    expect(await page.locator('#history-list .history-row').count()).toBe(0);
    await page.selectOption('#history-status', 'completed');
    expect(await page.locator('#history-list .history-row').count()).toBe(1);
    await page.locator('section.history').screenshot({ path: path.join(SCREENSHOTS, 'studio-history-filter.png') });
    await context.close();
  });

  it('keeps the editor draft of each agent across a reload, and gives the shipped file back', async () => {
    const { context, page } = await openDemo(suite.browser, suite.server.url);
    const edited = (await fixture('scripted-hello.yaml')).replace('Say hello.', 'Say hello in Welsh.');
    await setAgent(page, edited);
    await page.waitForFunction(() =>
      (document.querySelector('#draft-note')?.textContent ?? '').includes('Draft of browser-scripted-hello saved'),
    );
    await page.reload();
    await waitReady(page);
    expect(await page.textContent('.cm-content')).toContain('Say hello in Welsh.');
    expect(await page.textContent('#draft-note')).toContain('Restored your draft of browser-scripted-hello');
    await page.locator('section.agent').screenshot({ path: path.join(SCREENSHOTS, 'studio-draft-restored.png') });
    // An example's draft comes back when the example is picked again, and can be discarded.
    await page.selectOption('#example-select', 'stream-story.yaml');
    await page.waitForFunction(() =>
      (document.querySelector('.cm-content')?.textContent ?? '').includes('stream-story'),
    );
    const story = (
      await page.evaluate(() =>
        [...document.querySelectorAll('.cm-content .cm-line')].map((line) => line.textContent).join('\n'),
      )
    ).replace('two-sentence', 'three-sentence');
    await setAgent(page, story);
    await page.waitForFunction(() =>
      (document.querySelector('#draft-note')?.textContent ?? '').includes('Draft of stream-story saved'),
    );
    await page.selectOption('#example-select', 'reason-cot-math.yaml');
    await page.selectOption('#example-select', 'stream-story.yaml');
    await page.waitForFunction(() =>
      (document.querySelector('.cm-content')?.textContent ?? '').includes('three-sentence'),
    );
    await page.click('#discard-draft');
    await page.waitForFunction(
      () => !(document.querySelector('.cm-content')?.textContent ?? '').includes('three-sentence'),
    );
    expect(await page.textContent('.cm-content')).toContain('two-sentence');
    await context.close();
  });
});
