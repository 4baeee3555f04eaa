import { describe, expect, it } from 'vitest';
import { loadError, runYaml } from '../engine/helpers.js';

const STEPS = `name: document-processor
nodes:
  - name: setup
    run: |
      return { documents = { { id = 'doc1', content = 'alpha beta' }, { id = 'doc2', content = 'gamma' }, { id = 'doc3', content = 'delta epsilon zeta' } } }
  - name: process_documents
    type: dynamic_parallel
    items: "{{ state.documents }}"
    item_var: doc
    index_var: doc_index
    max_concurrency: 2
    fan_in: combine_results
    steps:
      - name: count
        run: |
          local words = 0
          for _ in string.gmatch(state.doc.content, '%S+') do words = words + 1 end
          return { doc_id = state.doc.id, word_count = words }
      - name: label
        uses: json.parse
        with:
          text: '{"label": "{{ doc.id }}#{{ doc_index }}"}'
        output: parsed
    output: processed_documents
  - name: combine_results
    run: |
      local ids, total = {}, 0
      for _, r in ipairs(state.processed_documents) do
        ids[#ids + 1] = r.doc_id .. '=' .. r.parsed.data.label
        total = total + r.word_count
      end
      return { summary = table.concat(ids, ','), total_words = total, same = #state.parallel_results }
`;

describe('type: dynamic_parallel', () => {
  it('steps mode: one branch per item with item_var/index_var, results in item order under output and parallel_results', async () => {
    const { result, events } = await runYaml(STEPS);
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ summary: 'doc1=doc1#0,doc2=doc2#1,doc3=doc3#2', total_words: 6, same: 3 });
    const results = result.state.processed_documents as Array<Record<string, unknown>>;
    expect(results.map((entry) => entry.branch)).toEqual([
      'process_documents[0]',
      'process_documents[1]',
      'process_documents[2]',
    ]);
    expect(results[1]).toMatchObject({
      success: true,
      error: null,
      doc_id: 'doc2',
      word_count: 1,
      doc_index: 1,
      state: { doc_id: 'doc2', doc_index: 1 },
    });
    expect(result.state.parallel_results).toEqual(results);
    expect(
      events.find((event) => event.type === 'log' && event.data.source === 'dynamic_parallel')?.data,
    ).toMatchObject({ total_branches: 3, successful: 3, failed: 0 });
  });

  it('action mode: the branch state is the action update plus the item and index (TEA Python)', async () => {
    const { result } = await runYaml(
      `nodes:
  - name: fan
    type: dynamic_parallel
    items: ["a", "b"]
    fan_in: done
    action:
      uses: json.parse
      with:
        text: '{"upper": "{{ item | upper }}", "at": {{ index }}}'
      output: parsed
  - name: done
    run: |
      return { joined = state.parallel_results[1].parsed.data.upper .. state.parallel_results[2].parsed.data.upper }
`,
      { big: 'x' },
    );
    expect(result.state.joined).toBe('AB');
    const first = (result.state.parallel_results as Array<Record<string, unknown>>)[0]!;
    expect(first.state).toEqual({ parsed: { data: { upper: 'A', at: 0 } }, item: 'a', index: 0 });
  });

  it('a failing branch is recorded and does not fail the node; fail_fast cancels branches not yet started', async () => {
    const yaml = (failFast: boolean) => `nodes:
  - name: validate_all
    type: dynamic_parallel
    items: "{{ state.values }}"
    max_concurrency: 1
    fail_fast: ${failFast}
    fan_in: report
    steps:
      - name: check
        run: |
          if state.item < 0 then error('negative ' .. state.item) end
          return { ok = state.item }
  - name: report
    run: |
      local passed, failed = 0, 0
      for _, r in ipairs(state.parallel_results) do
        if r.success then passed = passed + 1 else failed = failed + 1 end
      end
      return { passed = passed, failed = failed }
`;
    const plain = await runYaml(yaml(false), { values: [1, -2, 3, 4] });
    expect(plain.result.status).toBe('completed');
    expect(plain.result.state).toMatchObject({ passed: 3, failed: 1 });
    const failure = (plain.result.state.parallel_results as Array<Record<string, any>>)[1]!;
    expect(failure).toMatchObject({ success: false, state: { item: -2, index: 1 }, item: -2 });
    expect(failure.error.message).toContain('negative -2');
    const fast = await runYaml(yaml(true), { values: [1, -2, 3, 4] });
    expect(fast.result.state).toMatchObject({ passed: 1, failed: 3 });
    expect((fast.result.state.parallel_results as Array<Record<string, any>>)[3]!.error.code).toBe('CANCELLED');
  });

  it('branches share the run budget: max_steps counts every branch step and stops the run', async () => {
    const { result } = await runYaml(STEPS, {}, { limits: { max_steps: 5 } });
    expect(result.status).toBe('failed');
    expect(result.stop_reason).toBe('max_steps');
  });

  it('items that are not a list fail the node; null or missing items run no branch', async () => {
    const yaml = `nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: "{{ state.xs }}"\n    fan_in: done\n    steps:\n      - run: return { seen = true }\n  - name: done\n`;
    const bad = await runYaml(yaml, { xs: 'abc' });
    expect(bad.result.status).toBe('failed');
    expect(bad.result.error?.message).toContain('`items` must give a list, got a string');
    const none = await runYaml(yaml, {});
    expect(none.result.state.parallel_results).toEqual([]);
  });

  it.each([
    [
      'subgraph mode',
      'subgraph: ./analysis.yaml\n    input: { x: 1 }',
      '(dynamic_parallel subgraph mode) is not supported by tea-edge',
    ],
    ['no branch body', '', 'exactly one of `action:` or `steps:`'],
    [
      'both action and steps',
      'action: { uses: json.parse, with: { text: "1" } }\n    steps:\n      - run: return {}',
      'not both',
    ],
    ['max_concurrency above 64', 'max_concurrency: 65\n    steps:\n      - run: return {}', 'max_concurrency'],
    ['an unknown fan_in node', 'steps:\n      - run: return {}', "fan_in node 'collect' is not a node"],
  ])('refused at load with a position: %s', (_what, keys, says) => {
    const fanIn = says.includes("'collect'") ? 'collect' : 'done';
    const error = loadError(
      `nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: "{{ state.xs }}"\n    fan_in: ${fanIn}\n    ${keys}\n  - name: done\n`,
    );
    expect(error.message).toContain(says);
    expect(error.location).toMatchObject({ file: 'test.yaml', line: expect.any(Number), column: expect.any(Number) });
  });

  it('needs fan_in (as TEA does)', () => {
    const error = loadError(
      'nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: [1]\n    steps:\n      - run: return {}\n',
    );
    expect(error.message).toContain('needs `fan_in: <node>`');
    expect(error.location.line).toBe(3);
  });

  it("an action branch with an unknown parameter is refused with the parameter's position", () => {
    const error = loadError(
      'nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: [1]\n    fan_in: done\n    action:\n      uses: json.parse\n      with:\n        txt: "1"\n  - name: done\n',
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.location.line).toBe(9);
  });
});

describe("TEA's renderer hint", () => {
  it('_render_items on a node is accepted with a warning (it only feeds TEA graph drawings)', async () => {
    const { loadAgent } = await import('../../src/load-agent-with-scripts.js');
    const agent = loadAgent(
      'nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: "{{ state.xs }}"\n    fan_in: done\n    steps:\n      - run: return {}\n    _render_items: [a, b]\n  - name: done\n',
      { file: 'test.yaml' },
    );
    expect(agent.warnings.join('\n')).toContain('`_render_items`');
  });
});
