/**
 * The new actions inside workerd (Miniflare), through the whole engine: the TEA-style examples
 * (web.scrape against a local site, llm.embed on the scripted model, retry.loop), web.search, and
 * llm.embed over HTTP against the mock server, give the same final state as in Node.
 */
import * as esbuild from 'esbuild';
import { readFileSync } from 'node:fs';
import { Miniflare } from 'miniflare';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { runYaml } from '../engine/helpers.js';
import { startWebFixture, type WebFixture } from '../support/web-fixture-server.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const ENTRY = `import { loadAgent } from './src/load-agent-with-scripts.ts';
import { runAgent } from './src/graph/run-agent.ts';
export default {
  async fetch(request) {
    const { yaml, input, secrets } = await request.json();
    const run = runAgent(loadAgent(yaml, { file: 'agent.yaml' }), input, { secrets });
    const types = [];
    for await (const event of run) types.push(event.type);
    const result = await run.result;
    return Response.json({ status: result.status, error: result.error?.code ?? null, state: result.state, types });
  },
};`;

const example = (name: string) => readFileSync(path.join(ROOT, 'examples', `${name}.yaml`), 'utf8');

describe('TEA actions in workerd', () => {
  let miniflare: Miniflare;
  let site: WebFixture;
  let model: MockOpenAI;

  beforeAll(async () => {
    site = await startWebFixture({ searchKey: 'workerd-key-42' });
    model = await startMockOpenAI();
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'tea-actions-worker.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    miniflare = new Miniflare({ modules: true, script: bundle.outputFiles![0]!.text, compatibilityDate: '2026-05-01' });
  }, 60_000);
  afterAll(async () => {
    await miniflare?.dispose();
    await site?.close();
    await model?.close();
  });

  async function both(yaml: string, input: Record<string, unknown> = {}, secrets: Record<string, string> = {}) {
    const response = await miniflare.dispatchFetch('http://worker.test/', {
      method: 'POST',
      body: JSON.stringify({ yaml, input, secrets }),
    });
    const inWorker = (await response.json()) as {
      status: string;
      error: string | null;
      state: Record<string, unknown>;
      types: string[];
    };
    const { result, events } = await runYaml(yaml, input, { secrets });
    const inNode = {
      status: result.status,
      error: result.error?.code ?? null,
      state: result.state,
      types: events.map((event) => event.type),
    };
    return { inWorker, inNode };
  }

  it('tea-web-scrape-summary: same result as in Node', async () => {
    const yaml = example('tea-web-scrape-summary').replace('https://example.com"', `${site.origin}"`);
    const { inWorker, inNode } = await both(yaml, { url: `${site.origin}/article.html` });
    expect(inWorker.status, JSON.stringify(inWorker)).toBe('completed');
    expect(inWorker).toEqual(inNode);
    expect(inWorker.state.title).toBe('Edge agents & you');
  });

  it('tea-llm-embed-search and tea-retry-loop: same result as in Node', async () => {
    for (const name of ['tea-llm-embed-search', 'tea-retry-loop', 'tea-agent-personas']) {
      const { inWorker, inNode } = await both(example(name));
      expect(inWorker.status, name).toBe('completed');
      expect(inWorker, name).toEqual(inNode);
    }
  });

  it('web.search with a key from secrets, and a refused private origin', async () => {
    const yaml = readFileSync(path.join(ROOT, 'tests/actions/fixtures/tea-web-search.yaml'), 'utf8').replaceAll(
      'https://searx.example.org',
      site.origin,
    );
    const { inWorker, inNode } = await both(yaml, {}, { SEARX_KEY: 'workerd-key-42' });
    expect(inWorker.status).toBe('completed');
    expect(inWorker).toEqual(inNode);
    const refused = await both(
      yaml.replace(`allow: ["${site.origin}"]`, 'allow: []'),
      {},
      { SEARX_KEY: 'workerd-key-42' },
    );
    expect(refused.inWorker.error).toBe('FORBIDDEN');
  });

  it('llm.embed over HTTP (mock server): same vectors as in Node', async () => {
    const yaml = `
settings: { llm: { api_base: "${model.url}", model: embed-model, max_retries: 0 } }
nodes:
  - { name: e, uses: llm.embed, with: { text: [alpha, "beta gamma"] } }
`;
    const { inWorker, inNode } = await both(yaml);
    expect(inWorker.status).toBe('completed');
    expect(inWorker).toEqual(inNode);
    expect(inWorker.state.embeddings).toEqual([
      [5, 1, 2, 1],
      [10, 2, 4, 1],
    ]);
  });
});
