import { describe, expect, it } from 'vitest';
import { createMemoryStores } from '../../src/storage/memory-store.js';
import { createActionRegistry, loadAgent, runAgent } from '../../src/index.js';
import type { ActionContext } from '../../src/core/action.js';
import { isSealedJson } from '../../src/util/frozen-json.js';
import type { AgentEvent } from '../../src/core/events.js';
import { resumeYaml, runYaml } from './helpers.js';

describe('graph execution', () => {
  it('list order, Lua results merged shallowly, events numbered', async () => {
    const { result, events } = await runYaml(
      `nodes:
  - name: one
    run: |
      return { a = 1, nested = { x = 1 } }
  - name: two
    run: |
      return { b = state.a + 1, nested = { y = 2 } }
`,
      { start: true },
    );
    expect(result.status).toBe('completed');
    expect(result.stop_reason).toBe('completed');
    expect(result.state).toEqual({ start: true, a: 1, b: 2, nested: { y: 2 } });
    expect(events.map((event) => event.type)).toEqual([
      'run_start',
      'node_start',
      'node_end',
      'node_start',
      'node_end',
      'done',
    ]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const event of events) expect(event.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(events[0]!.data).toMatchObject({ agent: 'test', input: { start: true } });
  });

  it('a non-table Lua result becomes {result: v}', async () => {
    const { result } = await runYaml('nodes:\n  - name: a\n    run: return 42\n');
    expect(result.state).toEqual({ result: 42 });
  });

  it('uses: and action: both run an action, output: stores the result under a key', async () => {
    const { result } = await runYaml(
      `nodes:
  - name: parse
    uses: json.parse
    with:
      text: "{{ state.raw }}"
    output: parsed
  - name: parse2
    action: json.parse
    with:
      text: '{"k": 2}'
`,
      { raw: '{"k": 1}' },
    );
    expect(result.state.parsed).toEqual({ data: { k: 1 } });
    expect(result.state.data).toEqual({ k: 2 });
  });

  it('goto rules: first truthy wins, a rule without if always matches, loops end', async () => {
    const { result } = await runYaml(`nodes:
  - name: count
    run: |
      return { n = (state.n or 0) + 1 }
    goto:
      - if: "state.n < 3"
        to: count
      - to: finish
  - name: finish
    run: |
      return { done = true }
`);
    expect(result.state).toEqual({ n: 3, done: true });
  });

  it("TEA truthiness: the string 'false' is false in a goto rule", async () => {
    const { result } = await runYaml(
      `nodes:
  - name: a
    goto:
      - if: "{{ state.flag }}"
        to: yes
      - to: no
  - name: yes
    run: return { went = 'yes' }
    goto: __end__
  - name: no
    run: return { went = 'no' }
`,
      { flag: 'false' },
    );
    expect(result.state.went).toBe('no');
  });

  it('no goto rule matching is NO_ROUTE naming the expressions tried', async () => {
    const { result } = await runYaml(
      `nodes:
  - name: a
    goto:
      - if: "state.x == 1"
        to: __end__
`,
      { x: 2 },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('NO_ROUTE');
    expect(result.error?.node).toBe('a');
    expect(result.error?.message).toContain('state.x == 1');
  });

  it('legacy edges with when, __start__ and __end__', async () => {
    const { result } = await runYaml(
      `nodes:
  - name: classify
    run: return { kind = state.n > 5 and 'big' or 'small' }
  - name: big
    run: return { label = 'BIG' }
  - name: small
    run: return { label = 'small' }
edges:
  - from: __start__
    to: classify
  - from: classify
    to: big
    when: "state.kind == 'big'"
  - from: classify
    to: small
    when: "state.kind == 'small'"
  - from: big
    to: __end__
  - from: small
    to: __end__
`,
      { n: 9 },
    );
    expect(result.state.label).toBe('BIG');
  });

  it('a goto cycle that never ends stops with BUDGET_EXCEEDED at max_steps', async () => {
    const { result } = await runYaml(`settings:
  limits:
    max_steps: 50
nodes:
  - name: a
    goto: b
  - name: b
    goto: a
`);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
    expect(result.stop_reason).toBe('max_steps');
  });

  it('the default max_steps is 1000', async () => {
    const { result, events } = await runYaml('nodes:\n  - name: a\n    goto: a\n');
    expect(result.stop_reason).toBe('max_steps');
    expect(events.filter((event) => event.type === 'node_end')).toHaveLength(1000);
  });

  it('parallel fan-out and fan-in with parallel_results in declaration order', async () => {
    const { result } = await runYaml(`nodes:
  - name: start
    run: return { base = 10 }
  - name: left
    run: return { v = state.base + 1 }
  - name: right
    run: return { v = state.base + 2 }
  - name: join
    fan_in: true
    run: |
      local total = 0
      for i, r in ipairs(state.parallel_results) do total = total + r.state.v end
      return { total = total, branches = #state.parallel_results }
edges:
  - from: start
    to: [left, right]
    parallel: true
    fan_in: join
  - from: left
    to: join
  - from: right
    to: join
  - from: join
    to: __end__
`);
    expect(result.status).toBe('completed');
    expect(result.state.total).toBe(23);
    const branches = result.state.parallel_results as Array<{ branch: string; success: boolean; state: { v: number } }>;
    expect(branches.map((branch) => branch.branch)).toEqual(['left', 'right']);
    expect(branches.every((branch) => branch.success)).toBe(true);
    expect(result.state.v).toBeUndefined();
  });

  it('a failing branch is reported, the others go on', async () => {
    const { result } = await runYaml(`nodes:
  - name: start
  - name: good
    run: return { ok = true }
  - name: bad
    run: error('boom')
  - name: join
    fan_in: true
    run: "return { count = #state.parallel_results }"
edges:
  - from: start
    to: [good, bad]
    type: parallel
    fan_in: join
  - from: good
    to: join
  - from: bad
    to: join
`);
    expect(result.status).toBe('completed');
    const branches = result.state.parallel_results as Array<{ success: boolean; error: { code: string } | null }>;
    expect(branches[0]!.success).toBe(true);
    expect(branches[1]!.success).toBe(false);
    expect(branches[1]!.error?.code).toBe('LUA_ERROR');
  });

  it('on_error graceful writes __error__ and goes on; raise fails the run', async () => {
    const graceful = await runYaml(`nodes:
  - name: a
    on_error: graceful
    run: error('bad thing')
  - name: b
    run: return { after = true }
`);
    expect(graceful.result.status).toBe('completed');
    expect(graceful.result.state.__error__).toMatchObject({ code: 'LUA_ERROR', node: 'a' });
    expect(graceful.result.state.after).toBe(true);
    const raised = await runYaml('nodes:\n  - name: a\n    run: error("bad thing")\n  - name: b\n');
    expect(raised.result.status).toBe('failed');
    expect(raised.result.error).toMatchObject({ code: 'LUA_ERROR', node: 'a' });
    expect(raised.events.at(-1)!.type).toBe('done');
  });

  it('on_error retry retries then succeeds', async () => {
    const { result, events } = await runYaml(`nodes:
  - name: flaky
    on_error:
      mode: retry
      max_retries: 3
      backoff_ms: 1
    uses: json.parse
    with:
      text: "{{ state.texts[state.i] if state.i is defined else 'nope' }}"
`);
    expect(result.status).toBe('failed');
    expect(events.filter((event) => event.type === 'node_start')).toHaveLength(4);
  });

  it('input_schema refuses bad input before any node', async () => {
    const { result, events } = await runYaml(
      `input_schema:
  type: object
  required: [topic]
  properties:
    topic: { type: string }
nodes:
  - name: a
    run: return { ran = true }
`,
      { topic: 3 },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('INPUT_INVALID');
    expect(events.some((event) => event.type === 'node_start')).toBe(false);
  });

  it('state that is not JSON is an error at the node that produced it', async () => {
    const { result } = await runYaml('nodes:\n  - name: a\n    run: return { f = function() end }\n');
    expect(result.status).toBe('failed');
    expect(['LUA_ERROR', 'STATE_INVALID']).toContain(result.error?.code);
    expect(result.error?.node).toBe('a');
  });

  it('a template loop bomb ends with TEMPLATE_LIMIT', async () => {
    const { result } = await runYaml(`nodes:
  - name: a
    uses: json.parse
    with:
      text: "{% for i in range(10**9) %}x{% endfor %}"
`);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('TEMPLATE_LIMIT');
  });

  it('hostile Lua ends in a typed error and the process keeps serving', async () => {
    const loop = await runYaml('nodes:\n  - name: spin\n    run: |\n      while true do end\n');
    expect(loop.result.error?.code).toBe('LUA_BUDGET');
    const pcallLoop = await runYaml(
      'nodes:\n  - name: spin\n    run: |\n      while true do pcall(function() while true do end end) end\n',
    );
    expect(pcallLoop.result.error?.code).toBe('LUA_BUDGET');
    const io = await runYaml('nodes:\n  - name: esc\n    run: |\n      return { x = io.open("/etc/passwd") }\n');
    expect(io.result.error?.code).toBe('LUA_ERROR');
    const after = await runYaml('nodes:\n  - name: ok\n    run: return { fine = true }\n');
    expect(after.result.state).toEqual({ fine: true });
  });

  it('steps run in order on a working copy', async () => {
    const { result } = await runYaml(`nodes:
  - name: multi
    steps:
      - run: return { a = 1 }
      - run: return { b = state.a + 1 }
      - uses: json.parse
        with:
          text: '{"c": 3}'
        output: parsed
`);
    expect(result.state).toEqual({ a: 1, b: 2, parsed: { data: { c: 3 } } });
  });

  it('cancellation ends the run as cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result } = await runYaml('nodes:\n  - name: a\n', {}, { signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.stop_reason).toBe('cancelled');
  });

  it('tools.list lists registered actions with their schemas', async () => {
    const { result } = await runYaml('nodes:\n  - name: t\n    uses: tools.list\n');
    const tools = result.state.tools as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toContain('validate.schema');
  });

  it("TEA's actions.<ns>_<name> aliases resolve", async () => {
    const { result } = await runYaml(
      'nodes:\n  - name: p\n    uses: actions.json_parse\n    with:\n      text: "[1]"\n',
    );
    expect(result.state.data).toEqual([1]);
  });

  it('validate.schema with $ref to schemas declared in the agent', async () => {
    const { result } = await runYaml(
      `schemas:
  person:
    type: object
    required: [name]
nodes:
  - name: v
    uses: validate.schema
    with:
      data: "{{ state.p }}"
      schema:
        $ref: person
`,
      { p: { age: 3 } },
    );
    expect(result.state.valid).toBe(false);
  });
});

describe('interrupts and resume', () => {
  const agent = `config:
  interrupt_before: [review]
nodes:
  - name: draft
    run: return { draft = 'v1' }
  - name: review
    run: return { reviewed = state.draft .. '+' .. (state.note or 'none') }
  - name: publish
    interrupt: after
    run: return { published = true }
  - name: final
    run: return { final = true }
`;

  it('before re-runs the node, after moves on, state_update is merged, seq continues', async () => {
    const stores = createMemoryStores();
    const first = await runYaml(agent, {}, stores);
    expect(first.result.status).toBe('interrupted');
    expect(first.result.stop_reason).toBe('interrupt_before');
    expect(first.result.interrupt).toMatchObject({ kind: 'interrupt', node: 'review', position: 'before' });
    const runId = first.result.run_id;

    const second = await resumeYaml(agent, runId, { state_update: { note: 'ok' } }, stores);
    expect(second.result.status).toBe('interrupted');
    expect(second.result.stop_reason).toBe('interrupt_after');
    expect(second.result.state).toMatchObject({ reviewed: 'v1+ok', published: true });
    expect(second.events[0]!.seq).toBe(first.events.at(-1)!.seq + 1);

    const third = await resumeYaml(agent, runId, {}, stores);
    expect(third.result.status).toBe('completed');
    expect(third.result.state).toEqual({ draft: 'v1', note: 'ok', reviewed: 'v1+ok', published: true, final: true });

    const stored = await stores.traceStore.readEvents(runId);
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1));
    expect((await stores.traceStore.getRun(runId))?.status).toBe('completed');

    const again = await resumeYaml(agent, runId, {}, stores);
    expect(again.result.error?.code).toBe('CONFLICT');
    const unknown = await resumeYaml(agent, 'no-such-run', {}, stores);
    expect(unknown.result.error?.code).toBe('NOT_FOUND');
  });

  it('two concurrent resumes do not both run', async () => {
    const stores = createMemoryStores();
    const first = await runYaml(agent, {}, stores);
    const [a, b] = await Promise.all([
      resumeYaml(agent, first.result.run_id, {}, stores),
      resumeYaml(agent, first.result.run_id, {}, stores),
    ]);
    const codes = [a.result, b.result].map((result) => result.error?.code ?? result.status);
    expect(codes.sort()).toEqual(['CONFLICT', 'interrupted']);
  });

  it('a resume that names its pause is CONFLICT once that pause was answered, even though the run paused again', async () => {
    const stores = createMemoryStores();
    const first = await runYaml(agent, {}, stores);
    const pause = first.result.interrupt!.checkpoint_id;
    const second = await resumeYaml(agent, first.result.run_id, { checkpoint_id: pause }, stores);
    expect(second.result.status).toBe('interrupted');
    const late = await resumeYaml(agent, first.result.run_id, { checkpoint_id: pause }, stores);
    expect(late.result.error).toMatchObject({
      code: 'CONFLICT',
      details: { checkpoint_id: pause, latest_checkpoint_id: second.result.interrupt!.checkpoint_id },
    });
    const stored = await stores.traceStore.readEvents(first.result.run_id);
    expect(stored.filter((event) => event.type === 'done')).toHaveLength(2);
    const next = await resumeYaml(
      agent,
      first.result.run_id,
      { checkpoint_id: second.result.interrupt!.checkpoint_id },
      stores,
    );
    expect(next.result.status).not.toBe('failed');
  });

  it('a trace store that refuses writes fails the run with STORAGE_ERROR', async () => {
    const stores = createMemoryStores();
    const failing = {
      ...stores.traceStore,
      appendEvents: async () => {
        throw new Error('disk full');
      },
    };
    const { result, events } = await runYaml(
      'nodes:\n  - name: a\n',
      {},
      { traceStore: failing, checkpointStore: stores.checkpointStore },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('STORAGE_ERROR');
    // The last event a host sees says so too (a frozen copy of `done`; the result stays the caller's).
    const done = events.at(-1)!;
    expect(done.type).toBe('done');
    expect(done.data).toMatchObject({ status: 'failed', error: { code: 'STORAGE_ERROR' } });
    expect(Object.isFrozen(done.data)).toBe(true);
    result.state.changed = true;
    expect(done.data).not.toHaveProperty('state.changed');
  });

  it('a state too large for an event is summarised inside done and node_end: status, stop reason and duration stay', async () => {
    const stores = createMemoryStores();
    const { result, events } = await runYaml(
      'nodes:\n  - name: grow\n    run: |\n      local t = {}\n      for i = 1, 6000 do t[i] = { i = i, ok = true } end\n      return { big = t }\n',
      {},
      stores,
    );
    expect(result.status).toBe('completed');
    expect((result.state.big as unknown[]).length).toBe(6000);
    const stored = await stores.traceStore.readEvents(result.run_id);
    for (const list of [events, stored]) {
      const done = list.find((event) => event.type === 'done')!;
      expect(done.data).toMatchObject({
        status: 'completed',
        stop_reason: 'completed',
        state: { truncated: true, original_bytes: JSON.stringify(result.state).length },
      });
      const nodeEnd = list.find((event) => event.type === 'node_end')!;
      expect(nodeEnd.data).toMatchObject({ update: { truncated: true }, duration_ms: expect.any(Number) });
    }
  });

  it('a size measured for a node_end is not reused by done once a later node or a run-end hook changed the value in place', async () => {
    // `state.big` is grown in place (the worst an action can do): done must name its final size.
    const grow = (extra: number) => (context: ActionContext) => {
      const big = context.state.big as unknown[];
      for (let index = 0; index < extra; index++) big.push({ added: index });
    };
    const registry = createActionRegistry([
      {
        name: 'test.grow_later',
        description: 'grows state.big in place',
        run: (_params, context) => (grow(3000)(context), {}),
      },
      {
        name: 'test.make_then_grow_at_end',
        description: 'returns big, and grows it in place when the run ends',
        run: (_params, context) => {
          context.onRunEnd?.(async () => grow(2000)(context));
          return { big: Array.from({ length: 6000 }, (_, index) => ({ index, ok: true })) };
        },
      },
    ]);
    const lua = 'local t = {}\n      for i = 1, 6000 do t[i] = { i = i, ok = true } end\n      return { big = t }';
    const agents = [
      `nodes:\n  - name: make\n    run: |\n      ${lua}\n  - name: later\n    uses: test.grow_later\n`,
      'nodes:\n  - name: make\n    uses: test.make_then_grow_at_end\n',
    ];
    for (const yaml of agents) {
      const run = runAgent(loadAgent(yaml, { file: 'test.yaml', registry }), {}, createMemoryStores());
      const events: AgentEvent[] = [];
      for await (const event of run) events.push(event);
      const result = await run.result;
      expect(result.status).toBe('completed');
      const done = events.at(-1)!;
      expect(done.type).toBe('done');
      expect(done.data).toMatchObject({
        status: 'completed',
        state: { truncated: true, original_bytes: JSON.stringify(result.state).length },
      });
    }
  });

  it('events are frozen values, the same objects in the trace and the stream (batches are sealed for the store)', async () => {
    const stores = createMemoryStores();
    const input = { nested: { list: [1, 2] } };
    const { result, events } = await runYaml(
      'nodes:\n  - name: a\n    run: |\n      return { out = { deep = { x = 1 } } }\n',
      input,
      stores,
    );
    expect(result.status).toBe('completed');
    for (const event of events) {
      expect(Object.isFrozen(event)).toBe(true);
      expect(Object.isFrozen(event.data)).toBe(true);
    }
    const batches: unknown[][] = [];
    const watching = {
      ...stores.traceStore,
      appendEvents: async (_runId: string, batch: AgentEvent[]) => void batches.push(batch),
    };
    await runYaml('nodes:\n  - name: a\n', {}, { traceStore: watching });
    expect(batches.length).toBeGreaterThan(0);
    for (const batch of batches) expect(isSealedJson(batch)).toBe(true);
    const nodeEnd = events.find((event) => event.type === 'node_end')!;
    expect(() => {
      (nodeEnd.data as unknown as { update: { out: { deep: Record<string, unknown> } } }).update.out.deep.x = 2;
    }).toThrow(TypeError);
    // The input and the state stay the caller's: the events hold copies.
    input.nested.list.push(3);
    result.state.extra = 1;
    expect(events[0]!.data).toMatchObject({ input: { nested: { list: [1, 2] } } });
    const stored = await stores.traceStore.readEvents(result.run_id);
    expect(stored).toHaveLength(events.length);
    stored.forEach((event, index) => {
      expect(event).toBe(events[index]);
    });
  });
});

describe('run budgets', () => {
  it('max_duration_ms is a stop reason', async () => {
    let clock = 0;
    const { result } = await runYaml(
      'settings:\n  limits:\n    max_duration_ms: 5\nnodes:\n  - name: a\n    goto: a\n',
      {},
      { now: () => (clock += 1) },
    );
    expect(result.stop_reason).toBe('max_duration_ms');
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
  });
});

describe('trace caps', () => {
  it('a run past 10,000 events keeps a truncation notice, then only error and done', async () => {
    const stores = createMemoryStores();
    const { result, events } = await runYaml(
      'settings:\n  limits:\n    max_steps: 6000\nnodes:\n  - name: a\n    goto: a\n',
      {},
      stores,
    );
    expect(result.stop_reason).toBe('max_steps');
    expect(events.length).toBeGreaterThan(12_000);
    const stored = await stores.traceStore.readEvents(result.run_id);
    expect(stored.length).toBeLessThanOrEqual(10_003);
    expect(stored.some((event) => event.type === 'log' && event.data.source === 'trace')).toBe(true);
    expect(stored.at(-1)!.type).toBe('done');
  });
});

describe('TEA spellings', () => {
  it('output as a mapping renders templates over result; script: is run:', async () => {
    const { result } = await runYaml(`nodes:
  - name: parse
    uses: json.parse
    with:
      text: '{"a": {"b": 7}}'
    output:
      b_value: "{{ result.data.a.b }}"
      label: "b is {{ result.data.a.b }}"
      missing: "{{ result.nope }}"
  - name: lua
    script: return { doubled = state.b_value * 2 }
`);
    expect(result.state).toEqual({ b_value: 7, label: 'b is 7', missing: '', doubled: 14 });
  });
});

describe('the scripted model across a resume', () => {
  it('a resumed run continues the scripted list where the interrupted run left it', async () => {
    const agent = `settings:
  llm:
    provider: scripted
    scripted: [first, second, third]
config:
  interrupt_before: [two]
nodes:
  - name: one
    uses: llm.call
    with: { prompt: a }
    output: a
  - name: two
    uses: llm.call
    with: { prompt: b }
    output: b
  - name: three
    uses: llm.call
    with: { prompt: c }
    output: c
`;
    const stores = createMemoryStores();
    const first = await runYaml(agent, {}, stores);
    expect(first.result.status).toBe('interrupted');
    const resumed = await resumeYaml(agent, first.result.run_id, {}, stores);
    expect(resumed.result.status).toBe('completed');
    const state = resumed.result.state as Record<string, { content: string }>;
    expect([state.a!.content, state.b!.content, state.c!.content]).toEqual(['first', 'second', 'third']);
  });
});

describe('settings.llm templates', () => {
  it('strings in settings.llm render over secrets and variables; the key is redacted from events', async () => {
    const seen: Array<{ api_key?: string }> = [];
    const { createScriptedModel } = await import('../../src/llm/scripted-model.js');
    const model = createScriptedModel(['hello']);
    const { result, events } = await runYaml(
      `variables:
  model_name: tiny-model
settings:
  llm:
    provider: openai
    api_key: "{{ secrets.llm_key }}"
    model: "{{ variables.model_name }}"
nodes:
  - name: ask
    uses: llm.call
    with: { prompt: hi }
    output: answer
`,
      {},
      {
        secrets: { llm_key: 'sk-secret-canary-42' },
        llm: {
          providerFactory: (connection) => {
            seen.push({ api_key: connection.api_key });
            return model;
          },
        },
      },
    );
    expect(result.status).toBe('completed');
    expect(seen[0]!.api_key).toBe('sk-secret-canary-42');
    expect(JSON.stringify(events)).not.toContain('sk-secret-canary-42');
    expect(model.calls[0]!.model).toBe('tiny-model');
  });
});

describe('time travel lineage', () => {
  it("a forked run's records and checkpoints keep its parent through every pause, to its end", async () => {
    const { forkRun } = await import('../../worker/fork-run.js');
    const stores = createMemoryStores();
    const yaml =
      'name: chain\nnodes:\n  - name: a\n    run: return { a = 1 }\n  - name: b\n    interrupt: before\n    run: return { b = 2 }\n  - name: c\n    run: return { c = 3 }\n';
    const agent = (await import('../../src/load-agent-with-scripts.js')).loadAgent(yaml, { file: 'chain.yaml' });
    await forkRun(agent, stores, { run_id: 'child', parent_run_id: 'parent', node: 'a', state: { a: 10 } });
    const first = await resumeYaml(yaml, 'child', {}, stores);
    expect(first.result).toMatchObject({ status: 'interrupted', stop_reason: 'interrupt_before' });
    expect(await stores.checkpointStore.loadLatest('child')).toMatchObject({
      lineage: { parent_run_id: 'parent', forked_after: 'a' },
    });
    expect(await stores.traceStore.getRun('child')).toMatchObject({
      status: 'interrupted',
      parent_run_id: 'parent',
      forked_after: 'a',
    });
    const second = await resumeYaml(yaml, 'child', {}, stores);
    expect(second.result).toMatchObject({ status: 'completed', state: { a: 10, b: 2, c: 3 } });
    expect(await stores.traceStore.getRun('child')).toMatchObject({
      status: 'completed',
      parent_run_id: 'parent',
      forked_after: 'a',
    });
    // A run that was not forked has no lineage fields.
    const plain = await runYaml(yaml, {}, stores);
    expect(await stores.traceStore.getRun(plain.result.run_id)).not.toHaveProperty('parent_run_id');
  });
});
