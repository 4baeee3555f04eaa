// The web demo in headless Chromium: honest outcomes. A run whose model server fails (HTTP 500,
// or nothing listening) shows a red headline with code, node and message, the failed node red in
// the graph and the failed model calls, and is never green in the history; a retried, slow call
// shows its spinner, clock and retry; each probe diagnosis (nothing listening, up but no CORS,
// 500 on a chat completion) shows its own message; the editor marks several problems at once;
// the API key stays in the tab unless the user asks to keep it. Screenshots go to
// test-artifacts/screenshots/.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/closed-port.js';
import type { Browser, Page } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import {
  fixture,
  openDemo,
  screenshot,
  SCREENSHOTS,
  setAgent,
  startRun,
  waitForEnd,
  waitReady,
} from './support/demo-page.js';
import { serveDemo, type DemoServer } from './support/serve-demo.js';

const RED = 'rgb(163, 22, 27)';
const GREEN = 'rgb(20, 108, 46)';

/** Colours of everything that says how the run ended (status badge, headline, history badge). */
function outcomeColours(page: Page): Promise<string[]> {
  return page.$$eval('#run-status .badge, #run-outcome, #history-list .history-row:first-child .badge', (nodes) =>
    nodes.map((node) => getComputedStyle(node).color),
  );
}

// Generous bounds that only prove each case ends: the machine is shared and often loaded.
describe.skipIf(!chromiumAvailable())('web demo outcomes (Chromium)', { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: DemoServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    [server, browser, mock] = await Promise.all([
      serveDemo(),
      launchChromium(),
      startMockOpenAI({ models: ['mock-model'], chunkSize: 3, chunkDelayMs: 120 }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mock?.close();
  });

  it('shows a run failed by HTTP 500 in red: headline with code, node and message, the red node, each failed call, the history', async () => {
    mock.setFault({ type: 'status', status: 500, body: '{"error":{"message":"the model crashed while loading"}}' });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'custom',
        api_base: mock.url,
        model: 'mock-model',
      });
      await setAgent(page, await fixture('failing-call.yaml'));
      await page.waitForSelector('svg.graph g.node[data-node="ask"]');
      await startRun(page);
      expect(await waitForEnd(page)).toBe('failed');
      const headline = page.locator('#run-outcome');
      await headline.waitFor();
      expect(await headline.getAttribute('class')).toContain('failed');
      expect(await headline.getAttribute('role')).toBe('alert');
      expect(await page.textContent('#run-outcome .error-code')).toBe('LLM_HTTP_500');
      expect(await page.textContent('#run-outcome .error-node')).toBe('ask');
      expect(await headline.textContent()).toContain('HTTP 500');
      // The graph: the failed node red, the node after it drawn as not run (the run ended before it), nothing green.
      await page.waitForSelector('svg.graph g.node.failed[data-node="ask"]');
      expect(await page.locator('svg.graph g.node.failed').count()).toBe(1);
      expect(await page.getAttribute('svg.graph g.node[data-node="publish"]', 'data-state')).toBe('not-run');
      expect(await page.$eval('svg.graph g.node[data-node="ask"] rect', (rect) => getComputedStyle(rect).stroke)).toBe(
        RED,
      );
      expect(
        await page.$eval('svg.graph g.node[data-node="prepare"] rect', (rect) => getComputedStyle(rect).stroke),
      ).not.toBe(GREEN);
      // Every attempt failed and the call says so, with its attempts.
      const failedCall = page.locator('#model-calls .model-call.failed');
      expect(await failedCall.count()).toBe(1);
      expect(await failedCall.textContent()).toMatch(/LLM_HTTP_500.*3 attempts/s);
      await page.waitForSelector('#history-list .history-row .status-failed');
      const colours = await outcomeColours(page);
      expect(colours.length).toBe(3);
      expect(colours.every((colour) => colour === RED)).toBe(true);
      expect(await page.textContent('#history-list .history-row:first-child')).toContain('LLM_HTTP_500');
      await screenshot(page, 'run-failed-http-500');
      // Opened again from the history, it is still the same failed run.
      await page.reload();
      await waitReady(page);
      await page
        .locator('#history-list .history-row', { hasText: 'browser-failing-call' })
        .first()
        .locator('.open-run')
        .click();
      await page.waitForSelector('#run-outcome.failed');
      expect(await page.textContent('#run-outcome .error-node')).toBe('ask');
      await page.waitForSelector('svg.graph g.node.failed[data-node="ask"]');
      await context.close();
    } finally {
      mock.setFault();
    }
  });

  it('shows a run whose model server is down as failed with LLM_UNAVAILABLE', async () => {
    const port = await closedPort();
    const { context, page } = await openDemo(browser, server.url, {
      preset: 'ollama',
      api_base: `http://127.0.0.1:${port}/v1`,
      model: 'llama3.2',
    });
    await setAgent(page, await fixture('failing-call.yaml'));
    await startRun(page);
    expect(await waitForEnd(page)).toBe('failed');
    expect(await page.textContent('#run-outcome .error-code')).toBe('LLM_UNAVAILABLE');
    expect(await page.textContent('#run-outcome .error-node')).toBe('ask');
    expect(await page.textContent('#run-outcome')).toContain(`127.0.0.1:${port}`);
    await page.waitForSelector('svg.graph g.node.failed[data-node="ask"]');
    expect(await page.locator('#model-calls .model-call.failed').count()).toBe(1);
    await screenshot(page, 'run-failed-server-down');
    // The headline's button runs the probe, which says the server is not running.
    await page.click('#outcome-probe');
    await page.waitForSelector('#probe-down', { timeout: 20_000 });
    await context.close();
  });

  it('never shows a reflection loop whose model answers HTTP 500 as a clean success', async () => {
    mock.setFault({ type: 'status', status: 500 });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'custom',
        api_base: mock.url,
        model: 'mock-model',
      });
      await setAgent(page, await fixture('reflection-stream.yaml'));
      await startRun(page);
      const status = await waitForEnd(page, 60_000);
      expect(await page.locator('#model-calls .model-call.failed').count()).toBeGreaterThanOrEqual(1);
      // Whatever the status, neither the run's badge nor its node is green.
      expect(await page.$eval('#run-status .badge', (badge) => getComputedStyle(badge).color)).not.toBe(GREEN);
      expect(
        await page.$eval('svg.graph g.node[data-node="draft_profile"] rect', (rect) => getComputedStyle(rect).stroke),
      ).not.toBe(GREEN);
      if (status === 'failed') {
        // The engine ends the node with the model's error (issue 10): red headline, red node.
        expect(await page.textContent('#run-outcome.failed .error-code')).toMatch(/^LLM_HTTP_500$|^REFLECTION_FAILED$/);
        await page.waitForSelector('svg.graph g.node.failed[data-node="draft_profile"]');
        expect((await outcomeColours(page)).filter((colour) => colour === GREEN)).toEqual([]);
      } else {
        // An engine that swallows the failure still cannot make it look clean.
        expect(status).toBe('completed');
        expect(await page.textContent('#run-outcome.warned')).toMatch(/model calls? failed/);
      }
      await screenshot(page, 'run-reflection-http-500');
      await context.close();
    } finally {
      mock.setFault();
    }
  });

  it('shows a slow, retried model call with a spinner, its clock and the retry', async () => {
    mock.setReplies([Array.from({ length: 40 }, (_, index) => `w${index}`).join(' ')]);
    mock.setFault({ type: 'status', status: 503, times: 1 });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'custom',
        api_base: mock.url,
        model: 'mock-model',
      });
      await setAgent(page, await fixture('retried-stream.yaml'));
      await startRun(page);
      const waiting = page.locator('#model-calls .model-call.waiting');
      await waiting.locator('.countdown').waitFor({ timeout: 10_000 });
      expect(await waiting.locator('.spinner').count()).toBe(1);
      expect(await waiting.textContent()).toMatch(/attempt 1 failed with LLM_HTTP_503/);
      expect(await waiting.locator('.countdown').textContent()).toMatch(/^attempt 2 (in \d+ s|sent)$/);
      // The clock moves while the answer streams in.
      const first = await waiting.locator('.elapsed').textContent();
      await page.waitForFunction(
        (before) => {
          const now = document.querySelector('#model-calls .model-call.waiting .elapsed')?.textContent;
          return now !== undefined && now !== null && now !== before;
        },
        first,
        { timeout: 10_000 },
      );
      await screenshot(page, 'run-retrying-call', false);
      expect(await waitForEnd(page, 30_000)).toBe('completed');
      expect(await page.textContent('#model-calls .model-call.answered')).toContain('2 attempts');
      expect(await page.locator('#run-outcome').count()).toBe(0);
      await context.close();
    } finally {
      mock.setFault();
      mock.setReplies(['Hello from the mock.']);
    }
  });

  it('draws the node a cancelled run stopped in grey', async () => {
    mock.setReplies([Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ')]);
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'custom',
        api_base: mock.url,
        model: 'mock-model',
      });
      await setAgent(page, await fixture('slow-stream.yaml'));
      await startRun(page);
      await page.waitForFunction(() => (document.querySelector('#stream-text')?.textContent ?? '').includes('word1'));
      await page.click('#cancel-button');
      expect(await waitForEnd(page, 10_000)).toBe('cancelled');
      await page.waitForSelector('svg.graph g.node.cancelled[data-node="talk"]');
      expect(await page.textContent('#run-outcome.cancelled')).toContain('talk');
      expect(await page.$eval('svg.graph g.node[data-node="talk"] rect', (rect) => getComputedStyle(rect).stroke)).toBe(
        'rgb(107, 114, 128)',
      );
      await screenshot(page, 'run-cancelled', false);
      await context.close();
    } finally {
      mock.setReplies(['Hello from the mock.']);
    }
  });

  it('tells a server that is not running: nothing listening, start it', async () => {
    const port = await closedPort();
    const { context, page } = await openDemo(browser, server.url, {
      preset: 'ollama',
      api_base: `http://127.0.0.1:${port}/v1`,
      model: '',
    });
    await page.click('#probe-button');
    // A hang guard, not a speed check: on a loaded 2-core CI machine this once took over 20 s.
    await page.waitForSelector('#probe-down', { timeout: 60_000 });
    expect(await page.textContent('#probe-down')).toContain('Nothing is listening');
    expect(await page.textContent('#probe-result')).toContain('ollama serve');
    expect(await page.locator('#cors-error').count()).toBe(0);
    await page.locator('section.settings').screenshot({ path: path.join(SCREENSHOTS, 'probe-nothing-listening.png') });
    await context.close();
  });

  it('names a local server that runs but refuses the page at start-up, instead of "nothing answered"', async () => {
    const refusing = await startMockOpenAI({ models: ['llama3.2'], cors: false });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      // Ollama's port is sent to a real server without CORS headers (the browser refuses the normal
      // request, the no-cors one gets an opaque answer); nothing listens on the other local ports.
      await context.route('http://localhost:11434/**', (route) =>
        route.continue({ url: route.request().url().replace('http://localhost:11434/v1', refusing.url) }),
      );
      await context.route(/^http:\/\/localhost:(1234|8080)\//, (route) => route.abort('connectionrefused'));
      const page = await context.newPage();
      await page.goto(server.url);
      await waitReady(page);
      await page.waitForSelector('#startup-cors-ollama', { timeout: 15_000 });
      expect(await page.textContent('#startup-cors-ollama')).toContain(
        'Ollama is running at http://localhost:11434/v1',
      );
      expect(await page.textContent('#probe-result')).toContain('OLLAMA_ORIGINS');
      expect(await page.textContent('#probe-result')).not.toContain('Nothing answered');
      expect(await page.textContent('#model-badge')).toBe('Scripted demo model');
      expect(refusing.requests.filter((request) => request.path === '/v1/models').length).toBeGreaterThanOrEqual(1);
      await page.locator('section.settings').screenshot({ path: path.join(SCREENSHOTS, 'startup-ollama-no-cors.png') });
    } finally {
      await context.close();
      await refusing.close();
    }
  });

  it('tells a server that runs but refuses CORS, with the fix', async () => {
    const refusing = await startMockOpenAI({ models: ['mock-model'], cors: false });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'ollama',
        api_base: refusing.url,
        model: '',
      });
      await page.click('#probe-button');
      await page.waitForSelector('#cors-error', { timeout: 20_000 });
      expect(await page.textContent('#cors-error')).toContain('is running');
      expect(await page.textContent('#probe-result')).toContain('OLLAMA_ORIGINS');
      expect(await page.locator('#probe-down').count()).toBe(0);
      // The no-cors request reached the server: it is up.
      expect(refusing.requests.some((request) => request.path === '/v1/models')).toBe(true);
      await page.locator('section.settings').screenshot({ path: path.join(SCREENSHOTS, 'probe-no-cors.png') });
      await context.close();
    } finally {
      await refusing.close();
    }
  });

  it('shows a chat completion that fails with HTTP 500 and its body', async () => {
    const failing = await startMockOpenAI({ models: ['mock-model'] });
    failing.setFault({
      type: 'status',
      status: 500,
      body: `{"error":{"message":"CUDA error: out of memory while loading mock-model ${'x'.repeat(3000)}"}}`,
    });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'custom',
        api_base: failing.url,
        model: '',
      });
      await page.click('#probe-button');
      await page.waitForSelector('#chat-error', { timeout: 30_000 });
      expect(await page.textContent('#chat-error')).toContain('HTTP 500');
      const body = (await page.textContent('#chat-error .error-body')) ?? '';
      expect(body).toContain('CUDA error: out of memory');
      expect(body).toContain('cut at 2000 characters');
      expect(body.length).toBeLessThan(2100);
      expect(await page.locator('#probe-result .ok-text').count()).toBe(0);
      expect(failing.chatRequests.some((request) => request.body?.model === 'mock-model')).toBe(true);
      await page.locator('section.settings').screenshot({ path: path.join(SCREENSHOTS, 'probe-chat-500.png') });
      await context.close();
    } finally {
      await failing.close();
    }
  });

  it('wraps a long error URL at 375 px instead of widening the page', async () => {
    const port = await closedPort();
    const longBase = `http://127.0.0.1:${port}/${'very-long-path-segment-'.repeat(8)}v1`;
    const { context, page } = await openDemo(
      browser,
      server.url,
      { preset: 'custom', api_base: longBase, model: 'm' },
      { width: 375, height: 800 },
    );
    await page.click('#probe-button');
    // A hang guard, not a speed check: on a loaded 2-core CI machine this once took over 20 s.
    await page.waitForSelector('#probe-down', { timeout: 60_000 });
    await setAgent(page, await fixture('failing-call.yaml'));
    await startRun(page);
    expect(await waitForEnd(page)).toBe('failed');
    expect(await page.textContent('#run-outcome')).toContain('very-long-path-segment');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'long-url-375');
    await context.close();
  });

  it('marks several load problems in the editor at once', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('two-problems.yaml'));
    await page.waitForFunction(() => document.querySelectorAll('#problems li').length >= 2, undefined, {
      timeout: 10_000,
    });
    const problems = await page.$$eval('#problems li', (items) => items.map((item) => item.textContent ?? ''));
    // Worded by the loader (a path as the field, or in the message): only place and gist are pinned.
    expect(problems.some((text) => /line 4:11\b.*settings.*object/.test(text))).toBe(true);
    expect(problems.some((text) => /line 6:11\b.*nodes.*string/.test(text))).toBe(true);
    // Both places carry a lint mark, on two different lines.
    await page.waitForFunction(() => document.querySelectorAll('.cm-lintRange-error').length >= 2, undefined, {
      timeout: 10_000,
    });
    const markedLines = await page.$$eval('.cm-lintRange-error', (marks) => [
      ...new Set(marks.map((mark) => mark.closest('.cm-line')?.textContent ?? '')),
    ]);
    expect(markedLines.length).toBeGreaterThanOrEqual(2);
    expect(markedLines.some((line) => line.includes('settings: 5'))).toBe(true);
    expect(markedLines.some((line) => line.includes('name: 7'))).toBe(true);
    await screenshot(page, 'editor-several-problems', false);

    // Whatever the loader lists (one problem before it reports every error at once, three after),
    // each listed problem with a line is marked on that line.
    await setAgent(page, await fixture('three-misspellings.yaml'));
    await page.waitForFunction(
      () =>
        (document.querySelector('#problems')?.textContent ?? '').includes('nope.action') ||
        (document.querySelector('#problems')?.textContent ?? '').includes('temprature'),
      undefined,
      { timeout: 10_000 },
    );
    await page.waitForFunction(() => document.querySelectorAll('.cm-lintRange-error').length >= 1, undefined, {
      timeout: 10_000,
    });
    const listedLines = await page.$$eval('#problems li', (items) =>
      items.map((item) => Number(/line (\d+)/.exec(item.textContent ?? '')?.[1] ?? 0)).filter((line) => line > 0),
    );
    expect(listedLines.length).toBeGreaterThanOrEqual(1);
    await page.waitForFunction(
      (count) =>
        new Set([...document.querySelectorAll('.cm-lintRange-error')].map((mark) => mark.closest('.cm-line'))).size >=
        count,
      new Set(listedLines).size,
      { timeout: 10_000 },
    );
    const markedTexts = await page.$$eval('.cm-lintRange-error', (marks) => [
      ...new Set(marks.map((mark) => mark.closest('.cm-line')?.textContent ?? '')),
    ]);
    const lines = (await fixture('three-misspellings.yaml')).split('\n');
    for (const line of new Set(listedLines))
      expect(markedTexts.some((text) => lines[line - 1]!.includes(text.trim()))).toBe(true);
    await screenshot(page, 'editor-three-misspellings', false);
    await context.close();
  });

  it('keeps the API key in the tab unless asked to remember it, and says where it is kept', async () => {
    const { context, page } = await openDemo(browser, server.url, {
      preset: 'custom',
      api_base: mock.url,
      model: 'mock-model',
    });
    expect(await page.inputValue('#key-storage')).toBe('session');
    expect(await page.textContent('#key-storage-note')).toContain('this tab only');
    await page.fill('#model-key', 'sk-test-key-1234');
    await page.press('#model-key', 'Tab');
    const stored = () =>
      page.evaluate(() => ({
        local: localStorage.getItem('tea-edge.model-settings') ?? '',
        session: sessionStorage.getItem('tea-edge.model-key'),
      }));
    expect((await stored()).local).not.toContain('sk-test-key-1234');
    expect((await stored()).session).toBe('sk-test-key-1234');
    await page.reload();
    await waitReady(page);
    expect(await page.inputValue('#model-key')).toBe('sk-test-key-1234');
    await page.selectOption('#key-storage', 'local');
    expect(await page.textContent('#key-storage-note')).toContain('localStorage');
    expect((await stored()).local).toContain('sk-test-key-1234');
    expect((await stored()).session).toBeNull();
    await page.locator('section.settings').screenshot({ path: path.join(SCREENSHOTS, 'settings-key-storage.png') });
    // Back to this tab only: the copy on disk is overwritten.
    await page.selectOption('#key-storage', 'session');
    expect((await stored()).local).not.toContain('sk-test-key-1234');
    await context.close();
  });
});
