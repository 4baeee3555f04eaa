// Unit tests of the web demo's pure parts (Node): graph building, event folding, NDJSON,
// model settings and schema key completion. The browser behaviour is in tests/browser/.
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { agentGraph } from './agent-graph.js';
import { parseNdjson, toNdjson } from './ndjson.js';
import { defaultSettings, loadSettings, saveSettings, STORAGE_KEY, toOverrides } from './model-settings.js';
import { summarize } from './run-summary.js';
import { keysAt, parentPath } from './schema-completion.js';
import { recordFromEvents } from './run-record.js';
import type { AgentEvent, EventData, EventType } from '../src/core/events.js';
import { createDemoModel, DEMO_REPLY } from './demo-model.js';
import { mayUseLua, needsScriptEngine } from './lua-marker.js';
import { loadAgent } from '../src/graph/load-agent.js';
import { AGENT_FILE, problemsFromLoadError } from './load-problems.js';
import teaEdgeConditions from '../examples/tea-edge-conditions.yaml?raw';
import teaDynamicParallel from '../examples/tea-dynamic-parallel.yaml?raw';
import teaWhileLoop from '../examples/tea-while-loop.yaml?raw';

/** An event with some of its type's fields (the names are checked against the events contract). */
const event = <T extends EventType>(seq: number, type: T, data: Partial<EventData<T>>, node?: string): AgentEvent =>
  ({
    type,
    run_id: 'r1',
    seq,
    ts: `2026-01-01T00:00:0${seq % 10}.000Z`,
    ...(node ? { node } : {}),
    data,
  }) as AgentEvent;

describe('agentGraph', () => {
  it('follows goto over edges over list order', () => {
    const graph = agentGraph({
      nodes: [
        { name: 'a', uses: 'llm.call' },
        { name: 'b', run: 'return {}', goto: [{ if: 'state.x', to: 'a' }, { to: 'c' }] },
        { name: 'c' },
      ],
    });
    expect(graph.nodes.map((node) => `${node.name}:${node.kind}`)).toEqual([
      '__start__:start',
      'a:llm.call',
      'b:lua',
      'c:pass',
      '__end__:end',
    ]);
    expect(graph.edges).toEqual([
      { from: '__start__', to: 'a' },
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a', label: 'state.x' },
      { from: 'b', to: 'c' },
      { from: 'c', to: '__end__' },
    ]);
  });

  it('draws legacy and parallel edges and tolerates junk', () => {
    const graph = agentGraph({
      nodes: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'j', fan_in: true }],
      edges: [
        { from: '__start__', to: 'a' },
        { from: 'a', to: ['b', 'c'], parallel: true, fan_in: 'j' },
        { from: 'j', to: '__end__', when: 'true' },
      ],
    });
    expect(graph.edges).toContainEqual({ from: 'a', to: 'b', label: 'parallel' });
    expect(graph.edges).toContainEqual({ from: 'c', to: 'j', label: 'fan in' });
    expect(graph.edges).toContainEqual({ from: 'j', to: '__end__', label: 'true' });
    expect(agentGraph('not an agent').nodes).toHaveLength(2);
    expect(agentGraph(null).edges).toEqual([{ from: '__start__', to: '__end__' }]);
  });

  it('labels TEA condition edges with the shortened condition and its when value (examples/tea-edge-conditions.yaml)', () => {
    const graph = agentGraph(parseYaml(teaEdgeConditions));
    const from = (name: string) => graph.edges.filter((edge) => edge.from === name);
    expect(from('classify')).toEqual([
      {
        from: 'classify',
        to: 'billing',
        label: 'category.content | trim… ⇒ true',
        detail: "state.category.content | trim | lower == 'billing' ⇒ true",
      },
      {
        from: 'classify',
        to: 'engineering',
        label: "'bug' in category.conte… ⇒ true",
        detail: "'bug' in state.category.content | lower ⇒ true",
      },
      { from: 'classify', to: 'general' },
    ]);
    expect(from('engineering')).toEqual([
      { from: 'engineering', to: '__end__', label: 'urgent ⇒ false', detail: 'state.urgent ⇒ false' },
      { from: 'engineering', to: 'page_oncall' },
    ]);
    expect(
      agentGraph({ nodes: [{ name: 'a' }], edges: [{ from: 'a', to: '__end__', condition: false, when: false }] })
        .edges,
    ).toContainEqual({ from: 'a', to: '__end__', label: 'false ⇒ false' });
  });

  it('draws a dynamic_parallel node with its fan_in edge and its items (examples/tea-dynamic-parallel.yaml)', () => {
    const graph = agentGraph(parseYaml(teaDynamicParallel));
    expect(graph.nodes.find((node) => node.name === 'summarise_each')).toEqual({
      name: 'summarise_each',
      kind: 'dynamic_parallel',
      fansOutOver: "{{ state.topics | default(['green tea', 'oolong', 'black tea'], true) }}",
    });
    // The fan_in edge replaces the plain list-order edge to the same node, never doubles it.
    expect(graph.edges.filter((edge) => edge.from === 'summarise_each')).toEqual([
      { from: 'summarise_each', to: 'combine', label: 'fan in' },
    ]);
    // A fan_in that is not the next node adds its edge beside the route.
    const apart = agentGraph({
      nodes: [
        { name: 'fan', type: 'dynamic_parallel', items: '{{ [1] }}', fan_in: 'join', action: { uses: 'x' } },
        { name: 'mid' },
        { name: 'join', fan_in: true },
      ],
    });
    expect(apart.edges.filter((edge) => edge.from === 'fan')).toEqual([
      { from: 'fan', to: 'join', label: 'fan in' },
      { from: 'fan', to: 'mid' },
    ]);
  });

  it('marks a while_loop node as a loop with its body node names (examples/tea-while-loop.yaml)', () => {
    const graph = agentGraph(parseYaml(teaWhileLoop));
    expect(graph.nodes.map((node) => node.name)).toEqual([
      '__start__',
      'refine_until_valid',
      'parse',
      'report',
      '__end__',
    ]);
    expect(graph.nodes[1]).toEqual({
      name: 'refine_until_valid',
      kind: 'while_loop',
      loopBody: ['generate', 'validate'],
    });
    expect(graph.edges).toContainEqual({ from: 'refine_until_valid', to: 'parse' });
  });
});

describe('summarize', () => {
  it('folds a reflection run', () => {
    const summary = summarize([
      event(1, 'run_start', { agent: 'demo' }),
      event(2, 'node_start', {}, 'gen'),
      event(3, 'llm_request', {}, 'gen'),
      event(4, 'answer_chunk', { content: 'Hel' }, 'gen'),
      event(5, 'answer_chunk', { content: 'lo' }, 'gen'),
      event(
        6,
        'reflection_attempt',
        { iteration: 1, score: 0.5, valid: false, errors: [{ message: 'missing', path: 'name' }] },
        'gen',
      ),
      event(7, 'reflection_attempt', { iteration: 2, score: 1, valid: true, error_count: 0 }, 'gen'),
      event(8, 'done', { status: 'completed', stop_reason: 'completed', state: { answer: 42 } }),
    ]);
    expect(summary.agent).toBe('demo');
    expect(summary.streams[0]!.text).toBe('Hello');
    expect(summary.attempts.map((attempt) => [attempt.iteration, attempt.valid, attempt.errors])).toEqual([
      [1, false, ['name: missing']],
      [2, true, []],
    ]);
    expect(summary.status).toBe('completed');
    expect(summary.final_state).toEqual({ answer: 42 });
    expect(summary.visited).toEqual(['gen']);
    expect(summary.current_node).toBeUndefined();
  });

  it('folds ReAct steps and a confirmation', () => {
    const summary = summarize([
      event(1, 'thinking', { step: 1, thought: 'compute' }),
      event(2, 'tool_start', { step: 1, tool: 'math.calculate', arguments: { expression: '2+2' }, autonomous: true }),
      event(3, 'tool_result', { step: 1, tool: 'math.calculate', status: 'ok', observation: '{"result":4}' }),
      event(4, 'thinking', { step: 2, thought: 'delete it' }),
      event(5, 'confirmation_request', { tool: 'files.delete', arguments: { path: '/x' } }, 'act'),
      event(6, 'done', { status: 'interrupted', stop_reason: 'confirmation', state: {} }),
    ]);
    expect(summary.steps[0]).toMatchObject({
      step: 1,
      thought: 'compute',
      tool: 'math.calculate',
      args: { expression: '2+2' },
      observation: '{"result":4}',
      autonomous: true,
    });
    expect(summary.steps[1]).toMatchObject({ step: 2, thought: 'delete it' });
    expect(summary.confirmation).toEqual({ tool: 'files.delete', arguments: { path: '/x' }, node: 'act' });
    expect(summary.stop_reason).toBe('confirmation');
  });
});

describe('ndjson', () => {
  it('round-trips and sorts by seq', () => {
    const events = [event(2, 'done', { status: 'completed' }), event(1, 'run_start', { agent: 'a' })];
    const parsed = parseNdjson(toNdjson(events));
    expect(parsed.ok && parsed.events.map((entry) => entry.seq)).toEqual([1, 2]);
    expect(recordFromEvents(parsed.ok ? parsed.events : [])).toMatchObject({
      run_id: 'r1',
      agent: 'a',
      status: 'completed',
      event_count: 2,
    });
  });

  it("reads a file exported by an older version under today's field names (upgraded once, at import)", () => {
    const old = [
      '{"type":"run_start","run_id":"r","seq":1,"ts":"2026-01-01T00:00:00.000Z","data":{"agent":"a","input":{}}}',
      '{"type":"llm_request","run_id":"r","seq":2,"ts":"2026-01-01T00:00:00.000Z","node":"n","data":{"model":"m"}}',
      '{"type":"log","run_id":"r","seq":3,"ts":"2026-01-01T00:00:00.000Z","node":"n","data":{"message":"retrying","attempt":2,"delay_ms":50,"code":"LLM_HTTP_503"}}',
      '{"type":"tool_start","run_id":"r","seq":4,"ts":"2026-01-01T00:00:00.000Z","node":"n","data":{"tool":"add","action":"calc.add","arguments":{"a":1},"call_id":"c","round":1}}',
      '{"type":"tool_result","run_id":"r","seq":5,"ts":"2026-01-01T00:00:00.000Z","node":"n","data":{"tool":"add","call_id":"c","success":true,"result":"2","round":1}}',
    ].join('\n');
    const parsed = parseNdjson(old);
    expect(parsed.ok).toBe(true);
    const summary = summarize(parsed.ok ? parsed.events : []);
    expect(summary.steps[0]).toMatchObject({ tool: 'add', args: { a: 1 }, observation: '2' });
    expect(summary.calls[0]!.retries).toEqual([
      { attempt: 2, delay_ms: 50, code: 'LLM_HTTP_503', at: '2026-01-01T00:00:00.000Z' },
    ]);
  });

  it('names the bad line', () => {
    expect(parseNdjson('{"type":"log","run_id":"r","seq":1,"data":{}}\nnope')).toEqual({
      ok: false,
      error: 'line 2: not JSON',
    });
    expect(parseNdjson('{"a":1}')).toEqual({
      ok: false,
      error: 'line 1: not an event (needs type, run_id, seq, data)',
    });
    expect(parseNdjson('\n\n')).toEqual({ ok: false, error: 'no events in the file' });
    const mixed = [event(1, 'log', {}), { ...event(2, 'log', {}), run_id: 'other' }];
    expect(parseNdjson(toNdjson(mixed))).toEqual({ ok: false, error: 'line 2: events of more than one run' });
  });
});

describe('model settings', () => {
  it('defaults to the scripted model and survives broken storage', () => {
    expect(loadSettings(undefined)).toEqual({ settings: defaultSettings(), saved: false });
    expect(loadSettings({ getItem: () => '{broken' }).saved).toBe(false);
    expect(
      loadSettings({
        getItem: () => {
          throw new Error('denied');
        },
      }).saved,
    ).toBe(false);
  });

  it('round-trips through storage and maps to engine overrides', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (key: string) => store.get(key) ?? null,
      setItem: (key: string, value: string) => void store.set(key, value),
    };
    saveSettings(storage, { preset: 'ollama', api_base: '', model: 'qwen', api_key: '' });
    expect(store.has(STORAGE_KEY)).toBe(true);
    const { settings } = loadSettings(storage);
    expect(toOverrides(settings)).toEqual({ provider: 'ollama', api_base: 'http://localhost:11434/v1', model: 'qwen' });
    expect(toOverrides({ preset: 'custom', api_base: 'http://h:1/v1', model: '', api_key: 'k' })).toEqual({
      provider: 'openai-compatible',
      api_base: 'http://h:1/v1',
      api_key: 'k',
    });
    expect(toOverrides(defaultSettings())).toEqual({ provider: 'scripted' });
  });
});

describe('schema key completion', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'agent name' },
      settings: { type: 'object', properties: { llm: { $ref: '#/definitions/llm' } } },
      nodes: { type: 'array', items: { $ref: '#/definitions/node' } },
    },
    definitions: {
      llm: { properties: { model: {}, api_base: {} } },
      node: { properties: { name: {}, uses: {}, with: { type: 'object' }, goto: {} } },
    },
  };
  const keys = (text: string) => keysAt(schema, text, text.length).map((entry) => entry.key);

  it('offers top-level keys, nested keys through $ref, and node keys in list items', () => {
    expect(keys('na')).toEqual(['name', 'settings', 'nodes']);
    expect(keys('settings:\n  llm:\n    ')).toEqual(['model', 'api_base']);
    expect(keys('nodes:\n  - ')).toEqual(['name', 'uses', 'with', 'goto']);
    expect(keys('nodes:\n  - name: a\n    u')).toEqual(['name', 'uses', 'with', 'goto']);
    expect(keys('nodes:\n- name: a\n  ')).toEqual(['name', 'uses', 'with', 'goto']);
    expect(keys('name: x\nfoo: bar baz')).toEqual([]);
  });

  it('computes parent paths', () => {
    expect(parentPath(['nodes:', '  - name: a', '    with:', '      prompt: x'], 6, false)).toEqual([
      'nodes',
      '[]',
      'with',
    ]);
    expect(parentPath(['nodes:', '  - name: a', '  - name: b'], 4, false)).toEqual(['nodes', '[]']);
    expect(parentPath(['a:', '  b:', '    c: 1'], 0, false)).toEqual([]);
  });
});

describe('engine choice and the demo model', () => {
  it('sends agents with Lua to the Lua engine', () => {
    expect(mayUseLua('nodes:\n  - name: a\n    run: |\n      return {}\n')).toBe(true);
    expect(mayUseLua('evaluator:\n  type: lua\n')).toBe(true);
    expect(mayUseLua('nodes:\n  - name: a\n    uses: llm.call\n    with:\n      prompt: "run fast"\n')).toBe(false);
  });

  it('tells from the error code, not the text, that the light engine needs the Lua one', () => {
    // What the light engine (no script sandbox) answers for an agent with Lua.
    let thrown: unknown;
    try {
      loadAgent('name: a\nnodes:\n  - name: n\n    run: return 1\n', { file: AGENT_FILE, scripts: {} });
    } catch (error) {
      thrown = error;
    }
    expect(needsScriptEngine(thrown as { code: string })).toBe(true);
    expect(problemsFromLoadError(thrown).some(needsScriptEngine)).toBe(true);
    expect(
      needsScriptEngine({ code: 'INVALID_AGENT', message: 'SCRIPT_ENGINE_NOT_LOADED LUA_ENGINE_NOT_LOADED' } as {
        code: string;
      }),
    ).toBe(false);
    expect(needsScriptEngine(undefined)).toBe(false);
  });

  it('answers with its labelled notice, whole or streamed', async () => {
    const model = createDemoModel();
    expect((await model.generate({ messages: [] })).content).toBe(DEMO_REPLY);
    let streamed = '';
    for await (const part of model.stream({ messages: [] })) if (part.type === 'delta') streamed += part.content;
    expect(streamed).toBe(DEMO_REPLY);
    expect(DEMO_REPLY.startsWith('[scripted demo model]')).toBe(true);
  });
});
