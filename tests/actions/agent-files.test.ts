/**
 * Agent files as sub-runs (issue 13): agent.dispatch / sequential / parallel with `{file: …}`
 * run another agent file of the host's folder (the Node rooted folder source here), sharing the
 * run's budgets, with their events nested in the run's trace, cycles and deep chains refused,
 * broken sub-agents reported with every load problem, and failures naming both agents.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRootedFileStore } from '../../adapters/fs/rooted-file-store.js';
import { fileStoreAgentSource, textAgentFileSource } from '../../src/graph/agent-files.js';
import { createActionRegistry } from '../../src/builtins.js';
import type { ActionRegistry } from '../../src/actions/registry.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { loadError, runYaml } from '../engine/helpers.js';
import { tasksFromEvents } from '../../src/reflection/review/task-executions.js';
import { summarize } from '../../web-demo/run-summary.js';

const TRIAGE = `
name: triage
settings: { llm: { provider: scripted, scripted: ["billing", "refund approved"] } }
nodes:
  - { name: classify, uses: llm.call, with: { prompt: "Classify: {{ state.task }}" }, output: category }
  - name: answer
    uses: llm.call
    with: { prompt: "Answer the {{ state.category.content }} ticket" }
    output: reply
  - { name: shape, run: "return { response = state.reply.content, category = state.category.content }" }
`;

const PARENT = `
name: desk
nodes:
  - name: route
    uses: agent.dispatch
    with: { agent: { file: triage.yaml }, task: "{{ state.ticket }}", input: { customer: "{{ state.customer }}" } }
    output: triaged
`;

describe('agent files as sub-runs (Node folder source)', () => {
  let root: string;
  let options: RunOptions;
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'tea-agent-files-'));
    write('triage.yaml', TRIAGE);
    write('desk.yaml', PARENT);
    options = { agentFiles: fileStoreAgentSource(createRootedFileStore(root)), agentFile: 'desk.yaml' };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('agent.dispatch runs the file: its final state is the result, its events are nested under the node', async () => {
    const { result, events } = await runYaml(PARENT, { ticket: 'I was charged twice', customer: 'ada' }, options);
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const triaged = result.state.triaged as Record<string, unknown>;
    expect(triaged).toMatchObject({
      response: 'refund approved',
      content: 'refund approved',
      agent: 'triage',
      file: 'triage.yaml',
      success: true,
    });
    expect(triaged.state).toMatchObject({
      task: 'I was charged twice',
      customer: 'ada',
      category: 'billing',
      response: 'refund approved',
    });
    const nested = events.filter((event) => event.sub_run !== undefined);
    expect(nested.map((event) => [event.type, event.sub_run![0]!.node])).toEqual([
      ['node_start', 'classify'],
      ['llm_request', 'classify'],
      ['llm_response', 'classify'],
      ['node_end', 'classify'],
      ['node_start', 'answer'],
      ['llm_request', 'answer'],
      ['llm_response', 'answer'],
      ['node_end', 'answer'],
      ['node_start', 'shape'],
      ['node_end', 'shape'],
    ]);
    for (const event of nested) {
      expect(event.node).toBe('route');
      expect(event.sub_run![0]).toMatchObject({ agent: 'triage', file: 'triage.yaml' });
    }
    // One run: one run_start, one done, seq without gaps; the sub-run is marked by log events.
    expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const marks = events
      .filter((event) => event.type === 'log' && event.data.source === 'sub_run')
      .map((event) => (event.data as { status: string }).status);
    expect(marks).toEqual(['started', 'completed']);
  });

  it('readers of node visits (the reviewer, the web demo summary) do not count the sub-run nodes as visits', async () => {
    const { events } = await runYaml(PARENT, { ticket: 't' }, options);
    expect(tasksFromEvents(events).map((task) => task.task_id)).toEqual(['route#1']);
    expect(summarize(events).visited).toEqual(['route']);
  });

  it('the sub-run shares the parent budget: its model calls count against the parent max_llm_calls', async () => {
    const parent = PARENT.replace('name: desk', 'name: desk\nsettings: { limits: { max_llm_calls: 1 } }');
    const { result } = await runYaml(parent, { ticket: 't' }, options);
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_llm_calls');
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
    expect(result.error?.details?.budget).toBe('max_llm_calls');
    expect(result.error?.message).toContain("sub-agent 'triage' (triage.yaml) called by agent 'desk'");
    expect(result.error?.node).toBe('route');
  });

  it('and its steps count against the parent max_steps', async () => {
    const parent = PARENT.replace('name: desk', 'name: desk\nsettings: { limits: { max_steps: 3 } }');
    const { result } = await runYaml(parent, { ticket: 't' }, options);
    expect(result.stop_reason).toBe('max_steps');
  });

  it('agent.sequential chains files and personas; agent.parallel aggregates files', async () => {
    write('echo.yaml', 'name: echo\nnodes:\n  - { name: e, run: "return { response = \'echo:\' .. state.task }" }\n');
    write(
      'team/upper.yaml',
      'name: upper\nnodes:\n  - { name: u, run: "return { response = string.upper(state.task) }" }\n',
    );
    const yaml = `
name: chain
settings:
  llm: { provider: scripted, scripted: ["persona says hi"] }
  agents: { helper: { system_prompt: "Be brief." } }
nodes:
  - name: seq
    uses: agent.sequential
    with:
      agents: [helper, { file: echo.yaml }, { file: team/upper.yaml }]
      tasks: ["start", "{{ previous_response }}", "{{ previous_response }}"]
    output: chained
  - name: par
    uses: agent.parallel
    with: { agents: [{ file: echo.yaml }, { file: echo.yaml }, { file: team/upper.yaml }], task: "x", aggregation: vote }
    output: voted
`;
    const { result } = await runYaml(yaml, {}, options);
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    const chained = result.state.chained as { result: string; chain: Array<Record<string, unknown>> };
    expect(chained.result).toBe('ECHO:PERSONA SAYS HI');
    expect(chained.chain.map((link) => [link.agent, link.file ?? null])).toEqual([
      ['helper', null],
      ['echo', 'echo.yaml'],
      ['upper', 'team/upper.yaml'],
    ]);
    expect((result.state.voted as { result: string }).result).toBe('echo:x');
  });

  it('a sub-agent calls files relative to its own folder, and events nest two levels deep', async () => {
    write(
      'team/lead.yaml',
      'name: lead\nnodes:\n  - { name: ask, uses: agent.dispatch, with: { agent: { file: upper.yaml }, task: "{{ state.task }}" }, output: up }\n  - { name: done, run: "return { response = state.up.response }" }\n',
    );
    const yaml =
      'name: top\nnodes:\n  - { name: go, uses: agent.dispatch, with: { agent: { file: team/lead.yaml }, task: abc }, output: out }\n';
    const { result, events } = await runYaml(yaml, {}, options);
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect((result.state.out as { response: string }).response).toBe('ABC');
    const deep = events.find((event) => event.sub_run?.length === 2 && event.type === 'node_start');
    expect(deep?.sub_run).toEqual([
      { agent: 'lead', file: 'team/lead.yaml', node: 'ask' },
      { agent: 'upper', file: 'team/upper.yaml', node: 'u' },
    ]);
    expect(deep?.node).toBe('go');
  });

  it('a cycle of files is refused with a typed error listing it', async () => {
    write(
      'ping.yaml',
      'name: ping\nnodes:\n  - { name: p, uses: agent.dispatch, with: { agent: { file: pong.yaml }, task: x } }\n',
    );
    write(
      'pong.yaml',
      'name: pong\nnodes:\n  - { name: q, uses: agent.dispatch, with: { agent: { file: ping.yaml }, task: x } }\n',
    );
    const { result } = await runYaml(
      'name: start\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: ping.yaml }, task: x } }\n',
      {},
      { ...options, agentFile: 'start.yaml' },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('INVALID_AGENT');
    expect(result.error?.message).toContain('ping.yaml → pong.yaml → ping.yaml');
    expect((result.error!.details!.cause as { details: { cycle: string[] } }).details.cycle).toEqual([
      'start.yaml',
      'ping.yaml',
      'pong.yaml',
      'ping.yaml',
    ]);
  });

  it('a chain deeper than the limit is refused (recursion is bounded even without a cycle)', async () => {
    for (let level = 0; level < 12; level++) {
      write(
        `deep/d${level}.yaml`,
        `name: d${level}\nnodes:\n  - { name: n, uses: agent.dispatch, with: { agent: { file: d${level + 1}.yaml }, task: x } }\n`,
      );
    }
    const { result } = await runYaml(
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: deep/d0.yaml }, task: x } }\n',
      {},
      options,
    );
    expect(result.error?.code).toBe('INVALID_AGENT');
    expect(result.error?.message).toContain('nest deeper than 8');
  });

  it('a broken sub-agent is reported with every load problem; a missing one is NOT_FOUND', async () => {
    write(
      'broken.yaml',
      'name: broken\nnodes:\n  - { name: a, uses: no.such_action }\n  - { name: b, uses: llm.call, with: { prompt: x, bogus_key: 1 } }\n',
    );
    const { result } = await runYaml(
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: broken.yaml }, task: x } }\n',
      {},
      options,
    );
    expect(result.error?.code).toBe('INVALID_AGENT');
    expect(result.error?.message).toContain("agent file 'broken.yaml' called by agent 'top' does not load");
    const problems = result.error?.details?.errors as Array<{ code: string; file: string }>;
    expect(problems.map((problem) => problem.code)).toEqual(['UNKNOWN_ACTION', 'INVALID_PARAMS']);
    expect(problems.every((problem) => problem.file === 'broken.yaml')).toBe(true);
    const missing = await runYaml(
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: nope.yaml }, task: x } }\n',
      {},
      options,
    );
    expect(missing.result.error?.code).toBe('NOT_FOUND');
  });

  it('the failure of a sub-run keeps its code and names both agents and the failing node', async () => {
    write('fails.yaml', 'name: fails\nnodes:\n  - { name: boom, run: "error(\'no luck\')" }\n');
    const { result } = await runYaml(
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: fails.yaml }, task: x } }\n',
      {},
      options,
    );
    expect(result.error?.code).toBe('LUA_ERROR');
    expect(result.error?.node).toBe('s');
    expect(result.error?.message).toContain(
      "sub-agent 'fails' (fails.yaml) called by agent 'top' failed at its node 'boom'",
    );
    expect(result.error?.details?.sub_run).toEqual({ agent: 'fails', file: 'fails.yaml', node: 'boom' });
  });

  it('a sub-agent that would pause is refused', async () => {
    write(
      'pauses.yaml',
      'name: pauses\nconfig: { interrupt_before: [a] }\nnodes:\n  - { name: a, run: "return {}" }\n',
    );
    const { result } = await runYaml(
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: pauses.yaml }, task: x } }\n',
      {},
      options,
    );
    expect(result.error?.code).toBe('INVALID_AGENT');
    expect(result.error?.message).toContain('a sub-run cannot pause');
  });

  it('a sub-agent asking for a tool confirmation fails the node instead of pausing (no interrupt in the trace)', async () => {
    write('approver.yaml', readFileSync(path.join(import.meta.dirname, '../worker/agents/approver.yaml'), 'utf8'));
    const { result, events } = await runYaml(
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: approver.yaml }, task: x } }\n',
      {},
      { ...options, role: 'operator' },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('ACTION_FAILED');
    expect(result.error?.message).toContain("at its node 'work'");
    expect(result.error?.message).toContain('a sub-run cannot pause');
    expect(events.some((event) => event.type === 'interrupt' || event.type === 'confirmation_request')).toBe(false);
  });

  it('paths leaving the folder are refused: at load when literal, at run time when templated', async () => {
    for (const bad of [
      '../x.yaml',
      '/etc/x.yaml',
      'C:/x.yaml',
      'a\\\\x.yaml',
      '%2e%2e/x.yaml',
      'file:///x.yaml',
      'a/../../x.yaml',
    ]) {
      const error = loadError(
        `nodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: "${bad}" }, task: x } }\n`,
      );
      expect(error.code, bad).toBe('INVALID_PARAMS');
      expect(error.location.field, bad).toBe('agent');
    }
    const templated =
      'name: top\nnodes:\n  - { name: s, uses: agent.dispatch, with: { agent: { file: "{{ state.f }}" }, task: x } }\n';
    for (const bad of ['../desk.yaml', '/tmp/x.yaml', 'a\u0000.yaml', 'team/../../desk.yaml']) {
      const { result } = await runYaml(templated, { f: bad }, options);
      expect(result.error?.code, bad).toBe('INVALID_PARAMS');
    }
    const fine = await runYaml(templated, { f: './echo.yaml' }, options);
    expect(fine.result.status).toBe('completed');
  });

  it('a file reference on a host without an agent source is refused with a typed error', async () => {
    const { result } = await runYaml(PARENT, { ticket: 't' });
    expect(result.error?.code).toBe('FORBIDDEN');
    expect(result.error?.message).toContain('gives no agent files');
  });
});

describe('one agent source shared by callers with different actions', () => {
  const HOST_CALL = 'name: stamp\nnodes:\n  - { name: mark, uses: host.stamp, output: mark }\n';
  const CALLER =
    'name: caller\nnodes:\n  - { name: call, uses: agent.dispatch, with: { agent: { file: stamp.yaml }, task: go }, output: sub }\n';
  const registryStamping = (mark: string) =>
    createActionRegistry([{ name: 'host.stamp', description: `stamps ${mark}`, run: () => mark }]);

  async function runWith(registry: ActionRegistry, agentFiles: RunOptions['agentFiles']): Promise<unknown> {
    const run = runAgent(
      loadAgent(CALLER, { file: 'caller.yaml', registry }),
      {},
      { agentFiles, agentFile: 'caller.yaml' },
    );
    for await (const _event of run) void _event;
    const result = await run.result;
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    return ((result.state.sub as Record<string, unknown>).state as Record<string, unknown>).mark;
  }

  it('each caller runs the sub-agent compiled against its own registry, and a repeat caller reuses its copy', async () => {
    let reads = 0;
    const source = textAgentFileSource('test texts', async (file) => {
      reads += 1;
      return file === 'stamp.yaml' ? HOST_CALL : undefined;
    });
    const first = registryStamping('first host');
    const second = registryStamping('second host');
    expect(await runWith(first, source)).toBe('first host');
    expect(await runWith(second, source)).toBe('second host');
    expect(await runWith(first, source)).toBe('first host');
    expect(reads).toBe(2);
  });

  it("a caller whose registry lacks the action the sub-agent needs gets the load error, not another caller's copy", async () => {
    const source = textAgentFileSource('test texts', async (file) => (file === 'stamp.yaml' ? HOST_CALL : undefined));
    expect(await runWith(registryStamping('host'), source)).toBe('host');
    const bare = createActionRegistry();
    const run = runAgent(
      loadAgent(CALLER, { file: 'caller.yaml', registry: bare }),
      {},
      { agentFiles: source, agentFile: 'caller.yaml' },
    );
    for await (const _event of run) void _event;
    const result = await run.result;
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('INVALID_AGENT');
    expect(result.error?.message).toContain('host.stamp');
  });
});
