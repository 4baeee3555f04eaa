/**
 * MCP benchmarks (docs/mcp.md "Costs"):
 * - Tool-call overhead through MCP against a built-in tool: one ReAct run of 200 steps through the
 *   engine, each step one call of an echo tool, once as a registered action and once as
 *   `mcp.local.echo` on an official-SDK MCP server on 127.0.0.1 (JSON answers, a new server per
 *   request as stateless SDK servers do). The model is instant, so the difference per step is
 *   what a call through MCP costs (HTTP round trip, JSON-RPC, both ends' checks).
 * - Bundle cost of MCP support per host, min+gzip: each bundle built as shipped and again with the
 *   MCP modules replaced by empty ones; the SDK's own client (with the cfworker validator) for
 *   comparison.
 */
import * as esbuild from 'esbuild';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createActionRegistry, createMemoryStores, loadAgent, runAgent } from '../src/index.js';
import type { ActionDefinition } from '../src/core/action.js';
import type { LlmProvider, LlmResponse } from '../src/core/model-provider.js';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../build/shared.mjs';
import type { BenchResult } from './bench-result.js';
import { timed } from './measure.js';

const ROOT = path.resolve(import.meta.dirname ?? '.', '..');
const STEPS = 200;
const ECHO_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
  additionalProperties: false,
};

const echo: ActionDefinition = {
  name: 'bench.echo',
  description: 'Echo a number',
  parameters: ECHO_SCHEMA,
  run: (params: { n: number }) => ({ n: params.n }),
};

async function startEchoServer(): Promise<{ origin: string; server: HttpServer }> {
  const server = createServer(async (request, response) => {
    const mcp = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'echo', description: 'Echo a number', inputSchema: ECHO_SCHEMA as never }],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, async (call) => ({
      content: [{ type: 'text', text: JSON.stringify({ n: call.params.arguments?.['n'] }) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    response.on('close', () => void mcp.close());
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function agentText(tool: string, origin: string): string {
  return `name: bench-mcp
settings:
  limits: { max_llm_calls: 5000 }
  http: { allow: ["${origin}"] }
  mcp: { servers: [{ name: local, url: "${origin}/mcp", tools: [echo] }] }
nodes:
  - name: react
    uses: reason.react
    with: { goal: count, tools: [{ name: ${tool}, tier: 1 }], max_steps: ${STEPS}, max_tool_calls: ${STEPS} }
    output: react
`;
}

function response(content: string): LlmResponse {
  return {
    content,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    model: 'bench',
    finish_reason: 'stop',
  };
}

/** Microseconds per ReAct step (wall, CPU of this process) with `tool` as the one tool. */
async function perStep(tool: string, origin: string): Promise<{ wallUs: number; cpuUs: number }> {
  const agent = loadAgent(agentText(tool, origin), { file: 'bench-mcp.yaml', registry: createActionRegistry([echo]) });
  let calls = 0;
  const reply = () => {
    const index = calls++;
    return index < STEPS - 1
      ? `{"thought": "s", "action": "${tool}", "action_input": {"n": ${index}}}`
      : '{"thought": "done", "action": "final_answer", "action_input": {"answer": "finished"}}';
  };
  const provider: LlmProvider = {
    generate: async () => response(reply()),
    stream: async function* () {
      yield { type: 'done', response: response(reply()) };
    },
  };
  let steps = 0;
  const timing = await timed(async () => {
    const result = await runAgent(agent, {}, { ...createMemoryStores(), llm: { providerFactory: () => provider } })
      .result;
    const react = result.state['react'] as
      | { total_steps?: number; steps?: Array<{ observation?: string }> }
      | undefined;
    if (result.status !== 'completed' || !String(react?.steps?.[0]?.observation).includes('"n":0'))
      throw new Error(
        `bench run of ${tool} ended wrongly: ${result.error?.message ?? JSON.stringify(react?.steps?.[0])}`,
      );
    steps = react?.total_steps ?? 0;
  });
  return { wallUs: (timing.wallMs * 1000) / steps, cpuUs: (timing.cpuMs * 1000) / steps };
}

/** An esbuild plugin that swaps the MCP modules for empty ones (the bundle without MCP support). */
const withoutMcp = {
  name: 'without-mcp',
  setup(build: esbuild.PluginBuild) {
    build.onLoad({ filter: /[\\/](src[\\/]mcp[\\/]mcp-tools|worker[\\/]mcp-route)\.ts$/ }, (args) => ({
      contents: args.path.includes('mcp-route')
        ? 'export function mountMcpRoute() {}'
        : 'export async function listMcpTools() { return new Map(); } export async function callMcpTool() { return ""; }',
      loader: 'ts',
    }));
  },
};

async function gzipped(options: esbuild.BuildOptions, removeMcp: boolean): Promise<number> {
  const result = await esbuild.build(
    baseOptions({ ...options, minify: true, write: false, ...(removeMcp ? { plugins: [withoutMcp] } : {}) }),
  );
  return gzipSync(result.outputFiles![0]!.contents, { level: 9 }).length;
}

async function bundleCost(options: esbuild.BuildOptions): Promise<number> {
  return ((await gzipped(options, false)) - (await gzipped(options, true))) / 1024;
}

export async function run(): Promise<BenchResult[]> {
  const { origin, server } = await startEchoServer();
  let builtin;
  let mcp;
  try {
    await perStep('mcp.local.echo', origin); // warm-up: JIT, sockets
    builtin = await perStep('bench.echo', origin);
    mcp = await perStep('mcp.local.echo', origin);
  } finally {
    server.closeAllConnections();
    server.close();
  }
  const browser = { entryPoints: [path.join(ROOT, 'src/engine-bundle.ts')], platform: 'browser' as const };
  const workerBundle = {
    entryPoints: [path.join(ROOT, 'worker/cloudflare/cloudflare.ts')],
    platform: 'browser' as const,
    external: ['virtual:tea-agents', 'virtual:tea-script-sandboxes', 'cloudflare:workers'],
  };
  const sdkClient = await esbuild.build(
    baseOptions({
      stdin: {
        contents:
          "export { Client } from '@modelcontextprotocol/sdk/client/index.js'; export { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'; export { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js';",
        resolveDir: ROOT,
        loader: 'ts',
      },
      platform: 'browser',
      mainFields: ['module', 'main'],
      minify: true,
      write: false,
    }),
  );
  const sdkGzip = gzipSync(sdkClient.outputFiles![0]!.contents, { level: 9 }).length / 1024;
  return [
    { name: 'mcp: ReAct step, built-in tool (wall)', value: builtin.wallUs, unit: 'µs/step' },
    {
      name: 'mcp: ReAct step, same tool over MCP (wall)',
      value: mcp.wallUs,
      unit: 'µs/step',
      baseline_value: builtin.wallUs,
      ratio: mcp.wallUs / builtin.wallUs,
    },
    { name: 'mcp: overhead per tool call through MCP (wall)', value: mcp.wallUs - builtin.wallUs, unit: 'µs/call' },
    { name: 'mcp: overhead per call (CPU, client + SDK server)', value: mcp.cpuUs - builtin.cpuUs, unit: 'µs/call' },
    { name: 'mcp: client in the browser engine (min+gzip)', value: await bundleCost(browser), unit: 'KiB' },
    { name: 'mcp: client + /mcp route in the worker (min+gzip)', value: await bundleCost(workerBundle), unit: 'KiB' },
    { name: 'mcp: official SDK client, for comparison (min+gzip)', value: sdkGzip, unit: 'KiB' },
  ];
}
