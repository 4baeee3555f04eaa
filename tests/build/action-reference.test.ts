import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createActionRegistry } from '../../src/builtins.js';
import { renderActionReference } from '../support/action-reference.js';
import { ACTION_RESULTS } from '../../src/actions/action-results.js';
import { createTestActionContext } from '../../src/testing/test-action-context.js';
import { createMemoryFileStore } from '../../src/testing/memory-file-store.js';

const FILE = new URL('../../docs/actions.md', import.meta.url);

describe('docs/actions.md', () => {
  it('is the reference the registry renders today (TEA_WRITE_DOCS=1 rewrites it)', () => {
    const actions = createActionRegistry().list();
    const rendered = renderActionReference(actions);
    if (process.env.TEA_WRITE_DOCS === '1') writeFileSync(FILE, rendered);
    expect(readFileSync(FILE, 'utf8')).toBe(rendered);
    // Every action has a section, so an action added without docs fails here.
    for (const action of actions) expect(rendered).toContain(`## ${action.name}\n`);
  });

  it('declares a result for every built-in action', () => {
    const undeclared = createActionRegistry()
      .list()
      .filter(
        (action) =>
          ACTION_RESULTS[action.name] === undefined ||
          (ACTION_RESULTS[action.name]!.properties === undefined &&
            typeof ACTION_RESULTS[action.name]!.description !== 'string'),
      )
      .map((action) => action.name);
    expect(undeclared).toEqual([]);
  });
});

/** Keys a result has that its action's declared result does not name. */
function undeclaredKeys(name: string, result: unknown): string[] {
  const declared = ACTION_RESULTS[createActionRegistry().resolve(name).name]?.properties as
    | Record<string, unknown>
    | undefined;
  if (declared === undefined) throw new Error(`${name} declares no result keys`);
  return Object.keys(result as Record<string, unknown>).filter((key) => !Object.hasOwn(declared, key));
}

describe('declared results name what the actions return', () => {
  const cases: Array<[string, Record<string, unknown>, Parameters<typeof createTestActionContext>[0]?]> = [
    ['json.parse', { text: '{"a": 1}' }],
    ['json.parse', { text: 'not json', strict: false }],
    ['json.query', { value: { a: [1] }, path: 'a[0]' }],
    ['math.calculate', { expression: '2 ** 3' }],
    ['memory.store', { key: 'k', value: 1 }],
    ['memory.retrieve', { key: 'k' }],
    ['tools.list', {}],
    ['validate.schema', { data: 1, schema: { type: 'string' } }],
    ['llm.call', { messages: [{ role: 'user', content: 'hi' }] }, { responses: ['hello'] }],
    ['reason.cot', { problem: '2 + 2?' }, { responses: ['<thinking>add</thinking><answer>4</answer>'] }],
    ['reason.cot', { problem: '2 + 2?' }, { responses: [new Error('down')] }],
    [
      'reason.react',
      { goal: 'add' },
      { responses: ['{"thought": "easy", "action": "final_answer", "action_input": {"answer": 4}}'] },
    ],
    [
      'reason.self_correct',
      { task: 'write', improvement_rounds: 1 },
      { responses: ['draft', 'too short', 'better draft'] },
    ],
    [
      'llm.tools',
      { messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'calc', action: 'math.calculate' }] },
      {
        responses: [
          {
            content: '',
            tool_calls: [
              { id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"expression": "1+1"}' } },
            ],
          },
          'two',
        ],
      },
    ],
    ['file.write', { path: 'a/b.txt', content: 'hello' }, { files: createMemoryFileStore() }],
    ['file.read', { path: 'b.txt' }, { files: createMemoryFileStore({ 'b.txt': 'hello' }) }],
    [
      'reflection.evaluate',
      { data: { a: 1 }, evaluator: { type: 'schema', schema: { type: 'object', required: ['b'] } } },
    ],
    [
      'agent.dispatch',
      { agent: 'helper', task: 'hi' },
      { responses: ['hello'], settings: { agents: { helper: { system_prompt: 'help' } } } },
    ],
  ];
  for (const [name, params, options] of cases) {
    it(`${name} ${JSON.stringify(params).slice(0, 40)}`, async () => {
      const context = createTestActionContext(options);
      const result = await context.callAction(name, params);
      expect(undeclaredKeys(name, result)).toEqual([]);
    });
  }
});
