// The web demo in headless Chromium: runs. The reflection example with the scripted model and
// with the mock OpenAI-compatible server (streaming), a ReAct agent approving a tier-3 tool,
// cancelling mid-stream, a runaway Lua loop stopped while the page stays responsive, and the
// issue-13 examples (agent files as sub-runs, files in OPFS).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import {
  fixture,
  openDemo,
  runAgentInPage,
  screenshot,
  SCREENSHOTS,
  setAgent,
  startRun,
  waitForEnd,
  waitReady,
} from './support/demo-page.js';
import { ROOT, serveDemo, type DemoServer } from './support/serve-demo.js';

const REFLECTION_EXAMPLE = 'reflection-json-schema.yaml';
const hasReflectionExample = existsSync(path.join(ROOT, 'examples', REFLECTION_EXAMPLE));

// Hang guards, not speed checks: a run in the page once took over 30 s on a loaded 2-core CI machine.
describe.skipIf(!chromiumAvailable())('web demo runs (Chromium)', { timeout: 90_000 }, () => {
  let browser: Browser;
  let server: DemoServer;
  let mock: MockOpenAI;

  beforeAll(async () => {
    [server, browser, mock] = await Promise.all([
      serveDemo(),
      launchChromium(),
      startMockOpenAI({ models: ['mock-model'], chunkSize: 3, chunkDelayMs: 15 }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await mock?.close();
  });

  it.skipIf(!hasReflectionExample)(
    'runs the reflection example with the scripted model and shows attempts and the final state',
    async () => {
      const { context, page } = await openDemo(browser, server.url);
      await page.selectOption('#example-select', REFLECTION_EXAMPLE);
      expect(await runAgentInPage(page)).toBe('completed');
      // Once the loop ended, its view (verdicts, feedback, candidates) replaces the live attempts.
      expect(await page.locator('#reflection-candidates .candidate').count()).toBeGreaterThanOrEqual(1);
      expect(await page.locator('#reflection-candidates .candidate.valid').count()).toBeGreaterThanOrEqual(1);
      expect(await page.locator('#attempts').count()).toBe(0);
      expect(await page.textContent('#final-state')).toContain('reflection');
      expect(await page.locator('svg.graph g.node.visited').count()).toBeGreaterThanOrEqual(1);
      await screenshot(page, 'reflection-scripted');
      // The README picture: the same view, window-sized.
      await page.setViewportSize({ width: 1200, height: 820 });
      await screenshot(page, 'readme', false);
      await context.close();
    },
  );

  it('streams a reflection run from the mock OpenAI-compatible server', async () => {
    const { context, page } = await openDemo(browser, server.url, {
      preset: 'custom',
      api_base: mock.url,
      model: 'mock-model',
    });
    await page.click('#probe-button');
    await page.waitForSelector('#probe-result .ok-text');
    expect(await page.textContent('#probe-result')).toContain('mock-model');
    // The probe made its own calls; the run's replies start now.
    mock.setReplies(['{"name": "Assam"}', '{"name": "Assam", "origin": "India, Brahmaputra valley"}']);
    const before = mock.chatRequests.length;
    await setAgent(page, await fixture('reflection-stream.yaml'));
    await startRun(page);
    // Tokens arrive while the run is still going.
    await page.waitForSelector('#stream-text');
    expect(await waitForEnd(page)).toBe('completed');
    const attempts = page.locator('#reflection-candidates .candidate');
    expect(await attempts.count()).toBe(2);
    expect(await attempts.nth(0).getAttribute('class')).toContain('invalid');
    expect(await attempts.nth(0).textContent()).toContain('origin');
    expect(await attempts.nth(1).getAttribute('class')).toContain(' valid');
    expect(await page.textContent('#final-state')).toContain('Brahmaputra');
    const requests = mock.chatRequests.slice(before);
    expect(requests.length).toBe(2);
    expect(requests.every((request) => request.body?.stream === true)).toBe(true);
    await screenshot(page, 'reflection-mock-stream');
    await context.close();
  });

  it('explains a CORS refusal with the exact fix, and lists the models when CORS is allowed', async () => {
    const closed = await startMockOpenAI({ models: ['mock-model'], cors: false });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'ollama',
        api_base: closed.url,
        model: '',
      });
      await page.click('#probe-button');
      await page.waitForSelector('#cors-error', { timeout: 20_000 });
      expect(await page.textContent('#probe-result')).toContain('OLLAMA_ORIGINS');
      await page.locator('section.settings').screenshot({ path: path.join(SCREENSHOTS, 'settings-cors.png') });
      await page.fill('#model-url', mock.url);
      await page.click('#probe-button');
      await page.waitForSelector('#probe-result .ok-text', { timeout: 20_000 });
      expect(
        await page.$$eval('#model-list option', (options) =>
          options.map((option) => (option as HTMLOptionElement).value),
        ),
      ).toEqual(['mock-model']);
      expect(await page.textContent('#probe-result')).toContain('streams');
      expect(await page.inputValue('#model-name')).toBe('mock-model');
      expect(await page.textContent('#model-badge')).toContain('mock-model');
      await context.close();
    } finally {
      await closed.close();
    }
  });

  it('runs a ReAct agent and resumes it after the user approves a tier-3 tool', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('react-confirm.yaml'));
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.waitForSelector('#confirm-dialog[open]');
    expect(await page.textContent('#confirm-tool')).toBe('memory.store');
    expect(await page.textContent('#confirm-args')).toContain('42');
    await screenshot(page, 'react-confirmation', false);
    await page.click('#approve-button');
    await page.waitForSelector('#run-status[data-status="completed"]');
    const steps = await page.textContent('#react-steps');
    expect(steps).toContain('math.calculate');
    expect(steps).toContain('memory.store');
    expect(await page.textContent('#final-state')).toContain('The total is 42');
    await screenshot(page, 'react-steps');
    await context.close();
  });

  it('feeds a denial back to the agent when the user denies a tier-3 tool', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('react-confirm.yaml'));
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.waitForSelector('#confirm-dialog[open]');
    // Keyboard only: Tab from Approve to Deny, then Enter.
    await page.focus('#approve-button');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#run-status[data-status="completed"]');
    expect(await page.textContent('#react-steps')).toContain('Denied');
    expect(await page.textContent('#final-state')).toContain('it was not saved');
    await context.close();
  });

  it('resumes a run paused by an interrupt, and a pending confirmation after a reload', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('interrupt-review.yaml'));
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.click('#resume-button');
    await page.waitForSelector('#run-status[data-status="completed"]');
    await page.waitForSelector('#resume-button', { state: 'hidden' });

    await setAgent(page, await fixture('react-confirm.yaml'));
    expect(await runAgentInPage(page)).toBe('interrupted');
    await page.waitForSelector('#confirm-dialog[open]');
    await page.reload();
    await waitReady(page);
    await page.locator('#history-list .history-row', { hasText: 'browser-react-confirm' }).locator('.open-run').click();
    await page.waitForSelector('#confirm-dialog[open]');
    await page.click('#approve-button');
    await page.waitForSelector('#run-status[data-status="completed"]');
    expect(await page.textContent('#final-state')).toContain('The total is 42');
    await context.close();
  });

  it('cancels a run in the middle of a stream, aborting the model call', async () => {
    const slow = await startMockOpenAI({
      models: ['mock-model'],
      chunkSize: 4,
      chunkDelayMs: 150,
      replies: [Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ')],
    });
    try {
      const { context, page } = await openDemo(browser, server.url, {
        preset: 'custom',
        api_base: slow.url,
        model: 'mock-model',
      });
      await setAgent(page, await fixture('slow-stream.yaml'));
      await startRun(page);
      await page.waitForFunction(() => (document.querySelector('#stream-text')?.textContent ?? '').includes('word2'));
      await page.click('#cancel-button');
      expect(await waitForEnd(page, 10_000)).toBe('cancelled');
      expect((await page.textContent('#stream-text')) ?? '').not.toContain('word59');
      expect(await page.isDisabled('#cancel-button')).toBe(true);
      // The model call was aborted: the server saw the client go away before the stream ended.
      await expect.poll(() => slow.chatRequests[0]?.aborted).toBe(true);
      await context.close();
    } finally {
      await slow.close();
    }
  });

  it('a spinning Lua loop: the page stays responsive, and Cancel ends the run (terminating the worker if the script does not stop first)', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(page, await fixture('hostile-lua.yaml'));
    await startRun(page);
    // The worker spins inside the script (it cannot even post its events); the page goes on.
    await page.waitForTimeout(200);
    // The page answers while the worker spins: typing and script both work.
    await page.fill('#run-input', '{"still": "responsive"}');
    expect(await page.inputValue('#run-input')).toBe('{"still": "responsive"}');
    expect(await page.getAttribute('#run-status', 'data-status')).toBe('running');
    await page.click('#cancel-button');
    // The agent asked for the largest Lua budget an agent may have (100M instructions): in a fast
    // Chromium the script can spend it within the cancel's grace period and fail on its own.
    // Either way the run ends with a true outcome, never `completed`.
    const ended = await waitForEnd(page, 15_000);
    expect(['cancelled', 'failed']).toContain(ended);
    expect(await page.textContent('#run-errors')).toContain(ended === 'cancelled' ? 'CANCELLED' : 'LUA_BUDGET');
    // A new worker took over: the next run works.
    await setAgent(page, await fixture('scripted-hello.yaml'));
    await page.fill('#run-input', '{}');
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('Hello from the scripted model');
    await context.close();
  });

  // Issue 13: the demo's seams. Agent files as sub-runs come from the bundled examples (sent with
  // each run to the engine worker); file.read / file.write use the browser's private file system.
  it('tea-agent-files runs its sub-agents from the bundled examples', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await page.selectOption('#example-select', 'tea-agent-files.yaml');
    expect(await runAgentInPage(page, 60_000)).toBe('completed');
    const state = await page.textContent('#final-state');
    expect(state).toContain('refunded within 3 days');
    expect(state).toContain('tea-agent-files-triage.yaml');
    await context.close();
  });

  it('an agent without Lua that runs a Lua example as a sub-run runs in the Lua engine', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await setAgent(
      page,
      'name: caller\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: tea-edge-conditions.yaml }, input: { ticket: "I was charged twice" } }, output: routed }\n',
    );
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('billing');
    await context.close();
  });

  it('tea-file-notes writes and reads its files in OPFS', async () => {
    const { context, page } = await openDemo(browser, server.url);
    await page.selectOption('#example-select', 'tea-file-notes.yaml');
    expect(await runAgentInPage(page)).toBe('completed');
    expect(await page.textContent('#final-state')).toContain('summaries/oolong.txt');
    // The file is in the origin's private file system, read here without the engine.
    const summary = await page.evaluate(async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('tea-files');
      const file = await (await (await root.getDirectoryHandle('summaries')).getFileHandle('oolong.txt')).getFile();
      return file.text();
    });
    expect(summary).toBe('Oolong is a partly oxidised tea between green and black.');
    await context.close();
  });
});
