/**
 * Issue 24 causes 3 and 6 in headless Chromium: the engine bundled into a page. Prompt redaction
 * (src/llm/redact-request.ts): a run whose state carries the host model key and whose prompts
 * render a secret calls a model server on 127.0.0.1 (CORS on) that records each request body; the
 * server never receives either in clear. The cut-quote rule (src/util/cut-text.ts): a
 * math.calculate expression (cut at 100) and a template format argument (cut at 50) carrying a
 * secret at every position across the cut leave no prefix of it in what the run hands out.
 */
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';
import { CHROMIUM, runInChromiumPage } from '../support/chromium-page.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { renderingSecretsAgent } from '../support/rendering-secrets-agent.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = 'ZQX9wK7vJ2mN4pR6tY8uH3gF5dS1aL0cE';
const MODEL_KEY = 'sk-host-model-key-0b1c2d3e';

/** The page: the prompt run against `modelUrl`, then the straddling runs; leaves `secretResult`. */
const entry = (modelUrl: string) => `import { loadAgent, runAgent } from './src/index.ts';
const SECRET = ${JSON.stringify(SECRET)};
const MODEL_KEY = ${JSON.stringify(MODEL_KEY)};
const run = async (yaml, input, options) => {
  const handle = runAgent(loadAgent(yaml, { file: 'agent.yaml' }), input, options);
  const events = [];
  for await (const event of handle) events.push(event);
  const result = await handle.result;
  return { status: result.status, text: JSON.stringify({ result, events }) };
};
const prompts = await run(${JSON.stringify(renderingSecretsAgent(modelUrl))}, { key: MODEL_KEY }, { secrets: { demo_token: SECRET }, llm: { overrides: { api_key: MODEL_KEY } } });
const leaked = (text) => {
  const found = [];
  for (let length = 2; length <= SECRET.length; length++) if (text.includes(SECRET.slice(0, length))) found.push(SECRET.slice(0, length));
  return found;
};
const straddle = async (yaml, from, to) => {
  let cuts = 0;
  const leaks = [];
  for (let pad = from; pad <= to; pad++) {
    const { text } = await run(yaml, { pad: '-'.repeat(pad) }, { secrets: { K: SECRET } });
    if (text.includes('…[+')) cuts++;
    if (leaked(text).length > 0) leaks.push({ pad, leaked: leaked(text) });
  }
  return { runs: to - from + 1, cuts, leaks };
};
const math = await straddle('name: m\\nnodes:\\n  - name: calc\\n    uses: math.calculate\\n    with: { expression: "{{ state.pad }}{{ secrets.K }} +" }\\n', 20, 102);
const format = await straddle("name: f\\nnodes:\\n  - name: fmt\\n    uses: state.set\\n    with: { x: \\"{{ '%d' | format(state.pad ~ secrets.K) }}\\" }\\n", 0, 52);
globalThis.secretResult = {
  prompts: { status: prompts.status, secretInRun: prompts.text.includes(SECRET), keyInRun: prompts.text.includes(MODEL_KEY) },
  math,
  format,
  inBrowser: typeof window === 'object' && typeof process === 'undefined',
};`;

describe.skipIf(!existsSync(CHROMIUM))('secrets in model requests and cut quotes, in Chromium', () => {
  let model: MockOpenAI;
  beforeAll(async () => {
    model = await startMockOpenAI({ replies: ['one', 'two', 'three'] });
  });
  afterAll(async () => {
    await model?.close();
  });

  it('the model server never receives a secret in clear; a cut across a secret leaves no prefix of it', async () => {
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: entry(model.url), resolveDir: ROOT, sourcefile: 'secret-page.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    const { value, errors } = await runInChromiumPage(bundle.outputFiles![0]!.text, 'secretResult', 120_000);
    expect(errors).toEqual([]);
    const inPage = value as {
      prompts: { status: string; secretInRun: boolean; keyInRun: boolean };
      math: { runs: number; cuts: number; leaks: unknown[] };
      format: { runs: number; cuts: number; leaks: unknown[] };
      inBrowser: boolean;
    };
    expect(inPage.inBrowser).toBe(true);
    // Cause 6: the calls went out from the page (two chat, one embeddings), each redacted.
    expect(inPage.prompts).toEqual({ status: 'completed', secretInRun: false, keyInRun: false });
    expect(model.chatRequests).toHaveLength(2);
    expect(model.embeddingRequests).toHaveLength(1);
    const sent = JSON.stringify(model.requests.map((request) => request.body));
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain(MODEL_KEY);
    // The two prompts, the system text, the streamed message and the embedded text each carried one.
    expect(sent.match(/\[REDACTED\]/g)?.length).toBe(5);
    // Cause 3: the ranges cross the cut (the later runs quote the value cut), and no run leaks a prefix.
    for (const straddled of [inPage.math, inPage.format]) {
      expect(straddled.leaks).toEqual([]);
      expect(straddled.cuts).toBeGreaterThan(SECRET.length);
    }
  }, 180_000);
});
