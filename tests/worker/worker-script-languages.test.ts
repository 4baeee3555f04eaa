/**
 * The worker pays only for the script languages its agents use (build/script-sandbox-modules.mjs):
 * a bundle whose agents have no Lua carries no fengari and still runs its agents in workerd; the
 * same agents built with Lua asked for carry it (so the check can fail); an agent with Lua given
 * to a Lua-less worker's sandboxes is refused at load with SCRIPT_ENGINE_NOT_LOADED. The MCP
 * client is left out the same way when no agent declares settings.mcp.
 */
import type { Miniflare } from 'miniflare';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { prebuiltAgentSource, type PrebuiltAgent } from '../../worker/prebuilt-agent-source.js';
import { call, packageRoot, startWorker } from './miniflare-harness.js';

const root = packageRoot();
/** Text only the fengari VM brings: its module paths and its library openers. */
const LUA_VM = /fengari|luaopen_/;

interface WorkerBuild {
  bundleWorker(options: {
    root: string;
    agentsDir: string;
    scripts?: string[];
  }): Promise<{ text: string; languages: string[]; features: string[] }>;
  checkAgents(
    root: string,
    sources: Array<{ file: string; source: string }>,
  ): Promise<{ prebuilt: PrebuiltAgent[]; languages: string[] }>;
  default: unknown;
}

async function workerBuild(): Promise<WorkerBuild> {
  return import(pathToFileURL(path.join(root, 'build/targets/30-worker.mjs')).href);
}

let noLua: { text: string; languages: string[]; features: string[] };
let worker: Miniflare;

beforeAll(async () => {
  noLua = await (await workerBuild()).bundleWorker({ root, agentsDir: 'tests/worker/agents-no-lua' });
  worker = await startWorker(noLua.text);
}, 180_000);

afterAll(async () => {
  await worker?.dispose();
});

describe('worker script sandboxes chosen from the agents', () => {
  it('a worker whose agents use no Lua has no Lua VM and still runs its agents', async () => {
    expect(noLua.languages).toEqual([]);
    expect(noLua.text).not.toMatch(LUA_VM);
    // Issue 14's upload budget, which holds for a worker without Lua (gzip as wrangler counts it).
    expect(gzipSync(noLua.text).length).toBeLessThanOrEqual(160 * 1024);
    const listed = await call(worker, 'GET', '/agents');
    expect(listed.json.map((agent: { name: string }) => agent.name)).toEqual(['echo', 'triage']);
    const run = await call(worker, 'POST', '/agents/triage/runs', { input: { ticket: 'I was charged twice' } });
    expect(run.status).toBe(200);
    expect(run.json).toMatchObject({
      status: 'completed',
      state: { category: { content: 'billing' }, note: { content: expect.any(String) } },
    });
  });

  it('the same agents built with Lua asked for (TEA_WORKER_SCRIPTS) carry the VM', async () => {
    const withLua = await (await workerBuild()).bundleWorker({
      root,
      agentsDir: 'tests/worker/agents-no-lua',
      scripts: ['lua'],
    });
    expect(withLua.languages).toEqual(['lua']);
    expect(withLua.text).toMatch(LUA_VM);
    expect(withLua.text.length).toBeGreaterThan(noLua.text.length + 100_000);
  }, 180_000);

  it('finds Lua in the code the build compiled, such as a reflection evaluator, and none in a plain agent', async () => {
    const build = await workerBuild();
    // The example without its last node (a Lua `run`): what is left has Lua only in the evaluator.
    const text = await readFile(path.join(root, 'examples/reflection-lua.yaml'), 'utf8');
    const evaluator = { file: 'examples/reflection-lua.yaml', source: text.slice(0, text.indexOf('  - name: report')) };
    expect(evaluator.source).toContain('type: lua');
    expect(evaluator.source).not.toMatch(/^ {4}run:/m);
    expect((await build.checkAgents(root, [evaluator])).languages).toEqual(['lua']);
    expect(
      (await build.checkAgents(root, [{ file: 'plain.yaml', source: 'name: plain\nnodes:\n  - name: a\n' }])).languages,
    ).toEqual([]);
  }, 120_000);

  it('leaves the MCP client out unless an agent declares settings.mcp', async () => {
    const standIn = 'built without the MCP client';
    expect(noLua.features).toEqual([]);
    expect(noLua.text).toContain(standIn);
    const withMcp = await (await workerBuild()).bundleWorker({ root, agentsDir: 'examples/mcp' });
    expect(withMcp.features).toEqual(['mcp']);
    expect(withMcp.text).not.toContain(standIn);
    // Text of the client's listing check (src/mcp/mcp-tools.ts), in no other module.
    expect(withMcp.text).toContain('does not offer');
    expect(noLua.text).not.toContain('does not offer');
  }, 180_000);

  it("leaves web.scrape's HTML reader out unless an agent names web.scrape", async () => {
    const standIn = "built without web.scrape's HTML reader";
    expect(noLua.features).not.toContain('web.scrape');
    expect(noLua.text).toContain(standIn);
    const withScrape = await (await workerBuild()).bundleWorker({ root, agentsDir: 'examples' });
    expect(withScrape.features).toContain('web.scrape');
    expect(withScrape.text).not.toContain(standIn);
  }, 180_000);

  it('refuses an unknown language asked for by name', async () => {
    const failure = await (await workerBuild())
      .bundleWorker({ root, agentsDir: 'tests/worker/agents-no-lua', scripts: ['cobol'] })
      .catch((error: Error) => error);
    expect((failure as Error).message).toContain("unknown script language 'cobol'");
  }, 120_000);

  it('an agent with Lua added to a Lua-less worker is refused at load with SCRIPT_ENGINE_NOT_LOADED', async () => {
    const { prebuilt } = await (await workerBuild()).checkAgents(root, [
      {
        file: 'extra/adder.yaml',
        source: 'name: adder\nnodes:\n  - name: add\n    run: |\n      return { sum = 1 + 2 }\n',
      },
    ]);
    // The sandboxes a Lua-less worker bundles: none (virtual:tea-script-sandboxes with no language).
    const source = prebuiltAgentSource(prebuilt, Object.freeze({}));
    const error = (() => {
      try {
        source.get('adder');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(AgentError.isInstance(error)).toBe(true);
    const agentError = error as AgentError;
    expect(agentError.code).toBe('SCRIPT_ENGINE_NOT_LOADED');
    expect(agentError.location).toMatchObject({ file: 'extra/adder.yaml', node: 'add', field: 'run', line: 4 });
    expect(agentError.details.errors).toEqual([
      expect.objectContaining({ code: 'SCRIPT_ENGINE_NOT_LOADED', node: 'add', field: 'run' }),
    ]);
  }, 120_000);
});
