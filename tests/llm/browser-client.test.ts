/**
 * The model client inside Chromium: a page on one origin calls the mock server on another, so
 * the request is cross-origin as it is from the web demo to a local Ollama. With CORS the client
 * streams and probes; without CORS the failure is reported as probable CORS with the fixes.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from '../browser/support/chromium.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { serveScriptPage, type ScriptPage } from '../support/serve-script-page.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PAGE_SCRIPT = `
import { createOpenAiClient } from ${JSON.stringify(path.join(HERE, '../../src/llm/openai-client.ts'))};
import { probeEndpoint } from ${JSON.stringify(path.join(HERE, '../../src/llm/probe.ts'))};
globalThis.llm = {
  async stream(apiBase) {
    const parts = [];
    for await (const part of createOpenAiClient({ api_base: apiBase, max_retries: 0 }).stream({ model: 'mock-model', messages: [{ role: 'user', content: 'hi' }] })) parts.push(part);
    return parts;
  },
  async fail(apiBase) {
    try {
      await createOpenAiClient({ api_base: apiBase, max_retries: 0, api_key: 'sk-browser-canary-777' }).generate({ messages: [{ role: 'user', content: 'hi' }] });
      return { code: 'none' };
    } catch (error) {
      return { code: error.code, message: error.message, details: error.details };
    }
  },
  probe: (apiBase) => probeEndpoint({ api_base: apiBase, timeout_ms: 5000 }),
};
`;

const enabled = chromiumAvailable();
let browser: Browser;
let page: Page;
let site: ScriptPage;
let withCors: MockOpenAI;
let withoutCors: MockOpenAI;

describe.skipIf(!enabled)('the model client in Chromium', () => {
  beforeAll(async () => {
    site = await serveScriptPage(PAGE_SCRIPT, HERE);
    [withCors, withoutCors, browser] = await Promise.all([
      startMockOpenAI({ chunkSize: 3, replies: ['Hello from a cross-origin stream.'] }),
      startMockOpenAI({ cors: false }),
      launchChromium(),
    ]);
    page = await browser.newPage();
    await page.goto(site.url);
    await page.waitForFunction(() => (globalThis as { llm?: unknown }).llm !== undefined);
  });

  afterAll(async () => {
    await browser?.close();
    await withCors?.close();
    await withoutCors?.close();
    await site?.close();
  });

  it('streams from a CORS-enabled server on another origin', async () => {
    const parts = (await page.evaluate((url) => (globalThis as any).llm.stream(url), withCors.url)) as {
      type: string;
      content?: string;
      response?: { content: string };
    }[];
    expect(parts.filter((part) => part.type === 'delta').length).toBeGreaterThan(3);
    expect(parts.at(-1)).toMatchObject({ type: 'done', response: { content: 'Hello from a cross-origin stream.' } });
  });

  it('reports a server without CORS as a probable CORS failure with the Ollama and LM Studio fixes', async () => {
    const failure = (await page.evaluate((url) => (globalThis as any).llm.fail(url), withoutCors.url)) as {
      code: string;
      message: string;
      details: Record<string, unknown>;
    };
    expect(failure.code).toBe('LLM_UNAVAILABLE');
    expect(failure.details.probable_cors).toBe(true);
    expect(failure.message).toMatch(/OLLAMA_ORIGINS/);
    expect(failure.message).toMatch(/Enable CORS/);
    expect(JSON.stringify(failure)).not.toContain('sk-browser-canary-777');
    const report = (await page.evaluate((url) => (globalThis as any).llm.probe(url), withoutCors.url)) as {
      cors_error?: string;
      advice: string[];
    };
    expect(report.cors_error).toMatch(/CORS/);
    expect(report.advice[0]).toMatch(/OLLAMA_ORIGINS/);
  });
});
