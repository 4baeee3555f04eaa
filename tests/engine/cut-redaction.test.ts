/**
 * Error messages quoting a cut value never carry part of a secret (issue 24 cause 3): for each
 * place that quotes a value a run controls and cuts it (a refused path at 80 characters, a
 * math.calculate expression at 100, a template's format argument at 50, a rendered api_base at
 * 100, an MCP tool's error text at 2,000 and a JSON-RPC error at 500), a host secret is put at
 * every position across the cut, and nothing a run hands out (its result, its events) holds two
 * or more of its first characters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRootedFileStore } from '../../adapters/fs/rooted-file-store.js';
import { startMcpTestServer, tool, type McpTestServer } from '../support/mcp-test-server.js';
import { runYaml } from './helpers.js';

/** 33 characters, as in the finding; none of them occurs in the messages around it. */
const SECRET = 'ZQX9wK7vJ2mN4pR6tY8uH3gF5dS1aL0cE';

function leakedPrefixes(text: string): string[] {
  const leaked: string[] = [];
  for (let length = 2; length <= SECRET.length; length++)
    if (text.includes(SECRET.slice(0, length))) leaked.push(SECRET.slice(0, length));
  return leaked;
}

/** Runs `yaml` with the secret at each padding from `from` to `to`; every run must fail or finish without a prefix of it. */
async function straddle(
  yaml: string,
  from: number,
  to: number,
  options: Parameters<typeof runYaml>[2] = {},
): Promise<void> {
  let cuts = 0;
  for (let pad = from; pad <= to; pad++) {
    serverPad = pad;
    const { result, events } = await runYaml(yaml, { pad: '-'.repeat(pad) }, { ...options, secrets: { K: SECRET } });
    const text = JSON.stringify({ result, events });
    if (text.includes('…[+')) cuts++;
    expect({ pad, leaked: leakedPrefixes(text) }).toEqual({ pad, leaked: [] });
  }
  // The range crosses the cut: the later runs quote the value cut.
  expect(cuts).toBeGreaterThan(SECRET.length);
}

let directory: string;
let mcp: McpTestServer;
let mode: 'error' | 'throw' = 'error';
/** The padding the MCP server puts before the secret it echoes (the run's padding). */
let serverPad = 0;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-cut-'));
  mcp = await startMcpTestServer({
    tools: [tool('lookup', 'Looks a word up.')],
    call: () => {
      const text = `${'-'.repeat(serverPad)}${SECRET}/tail`;
      if (mode === 'throw') throw new Error(text);
      return { isError: true, content: [{ type: 'text', text }] };
    },
  });
});

afterAll(async () => {
  await mcp?.close();
  await rm(directory, { recursive: true, force: true });
});

describe('a secret straddling each cut position', () => {
  it('a refused path (80)', async () => {
    const yaml =
      'name: p\nnodes:\n  - name: read\n    uses: file.read\n    with: { path: "{{ state.pad }}{{ secrets.K }}/../x" }\n';
    await straddle(yaml, 0, 82, { files: createRootedFileStore(directory) });
  });

  it('a math.calculate expression (100)', async () => {
    const yaml =
      'name: m\nnodes:\n  - name: calc\n    uses: math.calculate\n    with: { expression: "{{ state.pad }}{{ secrets.K }} +" }\n';
    await straddle(yaml, 20, 102);
  });

  it('a template format argument (50)', async () => {
    const yaml =
      'name: f\nnodes:\n  - name: fmt\n    uses: state.set\n    with: { x: "{{ \'%d\' | format(state.pad ~ secrets.K) }}" }\n';
    await straddle(yaml, 0, 52);
  });

  it('a rendered api_base (100)', async () => {
    const yaml =
      'name: a\nnodes:\n  - name: ask\n    uses: llm.call\n    with: { prompt: hi, api_base: "{{ state.pad }}{{ secrets.K }}" }\n';
    await straddle(yaml, 20, 102);
  });

  for (const [label, kind, max] of [
    ['an MCP tool error text (2,000)', 'error', 2000],
    ['an MCP JSON-RPC error (500)', 'throw', 500],
  ] as const) {
    it(label, async () => {
      mode = kind;
      const settings = {
        llm: {
          provider: 'scripted',
          model: 'scripted',
          scripted: [
            JSON.stringify({ thought: 't', action: 'mcp.demo.lookup', action_input: { q: 'x' } }),
            JSON.stringify({ thought: 't', action: 'final_answer', action_input: { answer: 'done' } }),
          ],
        },
        http: { allow: [mcp.origin] },
        mcp: { servers: [{ name: 'demo', url: mcp.url, tools: ['lookup'] }] },
      };
      const yaml = `name: e\nsettings: ${JSON.stringify(settings)}\nnodes:\n  - name: ask\n    uses: reason.react\n    with: { goal: go, tools: [{ name: mcp.demo.lookup, tier: 1 }], max_steps: 3 }\n    output: react\n`;
      await straddle(yaml, max - 55, max + 2);
    });
  }
});
