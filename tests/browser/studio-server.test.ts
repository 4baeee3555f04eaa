// Studio server mode (issue 15, point 1) in headless Chromium against a `tea-edge serve` started
// here with agents and the mock OpenAI-compatible server as its model: the page opens connected
// to its own server, lists its agents, runs one over the HTTP API and follows it over SSE,
// shows the server's history, resumes an interrupted run, and switches to the tab in one click.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { fixture, openDemo, runAgentInPage, screenshot, setAgent } from './support/demo-page.js';
import { DIST, ensureBuilt, ROOT } from './support/serve-demo.js';

describe.skipIf(!chromiumAvailable())('studio server mode (Chromium)', () => {
  let browser: Browser;
  let server: RunningServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    await ensureBuilt();
    mock = await startMockOpenAI({ models: ['mock-model'], chunkSize: 3, chunkDelayMs: 10 });
    server = await serve({
      port: 0,
      agentsDir: path.join(ROOT, 'tests/browser/fixtures/server-agents'),
      traceDir: mkdtempSync(path.join(tmpdir(), 'tea-studio-server-')),
      webDemoDir: DIST,
      app: { llm: { overrides: { provider: 'openai-compatible', api_base: mock.url, model: 'mock-model' } } },
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mock?.close();
  });

  it('opens connected to its own server, runs a server agent over SSE, resumes one, lists the server history', {
    timeout: 90_000,
  }, async () => {
    mock.setReplies(['Oolong is a partly oxidised tea from Fujian and Taiwan.']);
    const { context, page } = await openDemo(browser, `${server.url}/`);
    await page.waitForFunction(() =>
      [...(document.querySelector<HTMLSelectElement>('#server-agent')?.options ?? [])].some(
        (option) => option.value === 'server-stream',
      ),
    );
    expect(await page.isChecked('#backend-server')).toBe(true);
    expect(await page.textContent('#server-status')).toContain('2 agents');
    // The editor is the tab's; the server's agent is drawn from its spec.
    expect(await page.isVisible('.cm-editor')).toBe(false);
    await page.selectOption('#server-agent', 'server-stream');
    await page.waitForSelector('svg.graph g.node[data-node="talk"]');
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#stream-text')).toContain('Fujian');
    expect(await page.textContent('#final-state')).toContain('Fujian');
    expect(await page.textContent('#run-status')).toContain('server agent server-stream');
    // The header says where runs go, not the tab's promise that nothing leaves it.
    expect(await page.textContent('#tagline')).toContain(
      `tea-edge server (server agent server-stream at ${server.url}`,
    );
    await page.waitForSelector('#history-list .history-row');
    expect(await page.textContent('#history-source')).toContain(server.url);
    // The timeline of a server run, the same as in the tab.
    await page.waitForSelector('#timeline .tl-item[data-kind="model"]');
    await page.locator('#timeline .tl-item[data-kind="node"]').first().click();
    expect(await page.textContent('#state-diff')).toContain('reply');
    await screenshot(page, 'studio-server-run');
    // Time travel on the server: run from after 'talk' with an edited reply (no model call).
    await page.click('#run-from-here');
    await page.fill('#run-from-state', JSON.stringify({ reply: { content: 'Edited on the server' } }));
    const before = mock.chatRequests.length;
    const parent = await page.getAttribute('#run-status', 'data-run-id');
    await page.click('#run-from-start');
    await page.waitForFunction(
      (previous) => document.querySelector('#run-status')?.getAttribute('data-run-id') !== previous,
      parent,
    );
    await page.waitForSelector('#run-status[data-status="completed"]');
    expect(await page.textContent('#final-state')).toContain('Edited on the server');
    expect(await page.textContent('#run-status')).toContain('on the server');
    expect(mock.chatRequests.length).toBe(before);

    await page.selectOption('#server-agent', 'server-review');
    await page.waitForSelector('svg.graph g.node[data-node="publish"]');
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.click('#resume-button');
    await page.waitForSelector('#run-status[data-status="completed"]');
    // The server's model answers both calls (its settings override the agent's); the publish node ran.
    expect(await page.textContent('#final-state')).toContain('"published"');
    await page.waitForFunction(() => document.querySelectorAll('#history-list .history-row').length >= 3);
    // Open a server run from the history: rebuilt from the server's stored events.
    await page.locator('#history-list .history-row', { hasText: 'server-stream' }).last().locator('.open-run').click();
    await page.waitForFunction(() => (document.querySelector('#final-state')?.textContent ?? '').includes('Fujian'));
    await screenshot(page, 'studio-server-history');
    // Compare two server runs.
    const rows = page.locator('#history-list .history-row');
    await rows.nth(0).locator('.pick-run').click();
    await rows.nth(1).locator('.pick-run').click();
    await page.click('#compare-button');
    await page.waitForSelector('#compare-view');
    expect(await page.textContent('#compare-view')).toContain('server-stream');
    expect(await page.textContent('#compare-view')).toContain('server-review');
    await screenshot(page, 'studio-server-compare');

    // One click back to the tab: the editor returns and runs in the tab.
    await page.click('#backend-tab');
    await page.waitForSelector('.cm-editor', { state: 'visible' });
    await setAgent(page, await fixture('scripted-hello.yaml'));
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#history-source')).toContain('this tab');
    // The choice is remembered.
    await page.reload();
    await page.waitForSelector('body[data-studio="ready"]');
    expect(await page.isChecked('#backend-tab')).toBe(true);
    await context.close();
  });

  it('says on screen when no server answers at a URL', async () => {
    const { context, page } = await openDemo(browser, `${server.url}/`);
    await page.waitForSelector('#server-agent');
    await page.fill('#server-url', 'http://127.0.0.1:9/');
    await page.click('#server-connect');
    await page.waitForFunction(() =>
      (document.querySelector('#server-status')?.textContent ?? '').includes('No tea-edge server answered'),
    );
    await screenshot(page, 'studio-server-unreachable', false);
    await context.close();
  });
});
