/**
 * The new actions in headless Chromium (the engine bundled into a page): the TEA-action examples,
 * web.search with a key, and llm.embed over HTTP give the same final state and events as in Node.
 * The local site and the mock model server answer with CORS headers.
 */
import * as esbuild from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { runYaml } from '../engine/helpers.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { startWebFixture, type WebFixture } from '../support/web-fixture-server.js';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = `import { loadAgent, runAgent } from './src/index.ts';
globalThis.runTea = async (yaml, input, secrets) => {
  const run = runAgent(loadAgent(yaml, { file: 'agent.yaml' }), input, { secrets });
  const types = [];
  for await (const event of run) types.push(event.type);
  const result = await run.result;
  return { status: result.status, error: result.error?.code ?? null, state: result.state, types };
};
globalThis.teaReady = true;`;

const example = (name: string) => readFileSync(path.join(ROOT, 'examples', `${name}.yaml`), 'utf8');

describe.skipIf(!existsSync(CHROMIUM))('TEA actions in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let server: Server;
  let site: WebFixture;
  let model: MockOpenAI;

  beforeAll(async () => {
    site = await startWebFixture({ searchKey: 'page-key-77' });
    model = await startMockOpenAI();
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'tea-actions-page.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    const script = bundle.outputFiles![0]!.text;
    server = createServer((request, response) => {
      if (request.url === '/engine.js')
        return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>tea</title><script type="module" src="/engine.js"></script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => (globalThis as { teaReady?: boolean }).teaReady === true, undefined, {
      timeout: 60_000,
    });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await site?.close();
    await model?.close();
  });

  async function both(yaml: string, input: Record<string, unknown> = {}, secrets: Record<string, string> = {}) {
    const inPage = await page.evaluate(([y, i, s]) => (globalThis as any).runTea(y, i, s), [
      yaml,
      input,
      secrets,
    ] as const);
    const { result, events } = await runYaml(yaml, input, { secrets });
    const inNode = {
      status: result.status,
      error: result.error?.code ?? null,
      state: result.state,
      types: events.map((event) => event.type),
    };
    return { inPage, inNode };
  }

  it('tea-web-scrape-summary, tea-llm-embed-search, tea-retry-loop: same result as in Node', async () => {
    const scrape = example('tea-web-scrape-summary').replace('https://example.com"', `${site.origin}"`);
    for (const [yaml, input] of [
      [scrape, { url: `${site.origin}/article.html` }],
      [example('tea-llm-embed-search'), {}],
      [example('tea-retry-loop'), {}],
      [example('tea-agent-personas'), {}],
    ] as const) {
      const { inPage, inNode } = await both(yaml, input);
      expect(inPage.status, JSON.stringify(inPage.error)).toBe('completed');
      expect(inPage).toEqual(inNode);
    }
  });

  it('web.search with the key from secrets: same result as in Node', async () => {
    const yaml = readFileSync(path.join(ROOT, 'tests/actions/fixtures/tea-web-search.yaml'), 'utf8').replaceAll(
      'https://searx.example.org',
      site.origin,
    );
    const { inPage, inNode } = await both(yaml, {}, { SEARX_KEY: 'page-key-77' });
    expect(inPage.status).toBe('completed');
    expect(inPage).toEqual(inNode);
  });

  it('llm.embed over HTTP (mock server): same vectors as in Node', async () => {
    const yaml = `
settings: { llm: { api_base: "${model.url}", model: embed-model, max_retries: 0 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: [alpha, "beta gamma"] } }
`;
    const { inPage, inNode } = await both(yaml);
    expect(inPage).toEqual(inNode);
    expect(inPage.state.embeddings).toEqual([
      [5, 1, 2, 1],
      [10, 2, 4, 1],
    ]);
  });
});
