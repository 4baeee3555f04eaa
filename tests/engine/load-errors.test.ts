import { describe, expect, it } from 'vitest';
import { formatAgentError } from '../../src/core/agent-error.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { loadError } from './helpers.js';

describe('agent files that must not load', () => {
  it('malformed YAML names line and column', () => {
    const error = loadError('name: x\nnodes:\n  - name: a\n    run: "return {}\n  - name: [b\n');
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.location.line).toBeGreaterThan(0);
    expect(error.location.column).toBeGreaterThan(0);
    expect(error.location.file).toBe('test.yaml');
  });

  it('unknown action suggests similar names', () => {
    const error = loadError('nodes:\n  - name: a\n    uses: llm.cal\n');
    expect(error.code).toBe('UNKNOWN_ACTION');
    expect(error.message).toContain('llm.call');
    expect(error.location.line).toBe(3);
  });

  it('unknown goto target', () => {
    const error = loadError('nodes:\n  - name: a\n    goto: bb\n  - name: b\n');
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toContain("'bb'");
    expect(error.location.line).toBe(3);
  });

  it('unknown target in a goto rule list', () => {
    const error = loadError(
      'nodes:\n  - name: a\n    goto:\n      - if: "state.x"\n        to: nope\n      - to: __end__\n',
    );
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.location.line).toBe(5);
  });

  it('duplicate node names', () => {
    const error = loadError('nodes:\n  - name: a\n  - name: a\n');
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toContain('duplicate node');
    expect(error.location.line).toBe(3);
  });

  it('an unreachable node loads with a warning, as in TEA (issue 13; validate --strict refuses it)', () => {
    const agent = loadAgent('nodes:\n  - name: a\n    goto: __end__\n  - name: b\n', { file: 'test.yaml' });
    expect(agent.warnings.join('\n')).toContain("node 'b' can never run");
  });

  it('language: python is refused with a hint to write Lua', () => {
    const error = loadError('nodes:\n  - name: a\n    language: python\n    run: |\n      return {"x": 1}\n');
    expect(error.code).toBe('UNSUPPORTED_LANGUAGE');
    expect(error.node).toBe('a');
  });

  it('code that is plainly Python is refused as such', () => {
    const error = loadError(
      'nodes:\n  - name: a\n    run: |\n      import json\n      def f(x):\n          return x\n      return {"x": f(state["y"])}\n',
    );
    expect(error.code).toBe('UNSUPPORTED_LANGUAGE');
    expect(error.message).toMatch(/Lua/);
  });

  it('Lua syntax error names node and the line in the file', () => {
    const error = loadError('nodes:\n  - name: calc\n    run: |\n      local x = 1\n      return x +\n');
    expect(error.code).toBe('LUA_SYNTAX');
    expect(error.node).toBe('calc');
    expect(error.toJSON()).toMatchObject({ node: 'calc', file: 'test.yaml' });
    expect(error.location.line).toBeGreaterThanOrEqual(5); // the `return x +` line or the end after it
  });

  it('an alias is refused, so an alias bomb cannot expand', () => {
    const bomb =
      'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nnodes:\n  - name: n\n';
    const error = loadError(bomb);
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toMatch(/alias/i);
  });

  it('10,000-deep nesting fails fast', () => {
    const error = loadError(
      'nodes:\n  - name: n\nvariables:\n  deep: ' + '['.repeat(10_000) + ']'.repeat(10_000) + '\n',
    );
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toMatch(/nests deeper/);
  });

  it('deep block nesting fails too', () => {
    let text = 'nodes:\n  - name: n\nvariables:\n';
    for (let depth = 1; depth < 80; depth++) text += ' '.repeat(depth * 2) + `k${depth}:\n`;
    text += ' '.repeat(160) + 'leaf: 1\n';
    expect(loadError(text).code).toBe('INVALID_AGENT');
  });

  it('duplicate keys are found by a linear check (10,000 keys, the duplicate last)', () => {
    let text = 'nodes:\n  - name: n\nvariables:\n';
    for (let index = 0; index < 10_000; index++) text += `  k${index}: ${index}\n`;
    text += '  k17: again\n';
    const error = loadError(text);
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toContain("duplicate key 'k17'");
  });

  it('40,000 keys are refused before the YAML parser runs', () => {
    let text = 'nodes:\n  - name: n\nvariables: {';
    for (let index = 0; index < 40_000; index++) text += `k${index % 1000}${index}: 1,`;
    text += '}\n';
    const error = loadError(text, { limits: { maxBytes: 4 * 1024 * 1024 } });
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toMatch(/more than 20000 keys/);
  });

  it('40,000 block keys exceed the default size or node cap', () => {
    let text = 'nodes:\n  - name: n\nvariables:\n';
    for (let index = 0; index < 40_000; index++) text += `  k${index}: ${index}\n`;
    expect(['INVALID_AGENT', 'INPUT_TOO_LARGE']).toContain(loadError(text).code);
  });

  it('an oversized file is INPUT_TOO_LARGE', () => {
    const text = 'nodes:\n  - name: n\nvariables:\n  big: "' + 'x'.repeat(300 * 1024) + '"\n';
    expect(loadError(text).code).toBe('INPUT_TOO_LARGE');
  });

  it('__proto__ keys are refused', () => {
    const error = loadError('nodes:\n  - name: n\nvariables:\n  __proto__:\n    polluted: true\n');
    expect(error.code).toBe('INVALID_AGENT');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('custom tags are refused', () => {
    const error = loadError('nodes:\n  - name: n\nvariables:\n  x: !!python/object:os.system ls\n');
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.message).toMatch(/tag/);
  });

  it('a schema violation names the path and line', () => {
    const error = loadError('nodes:\n  - name: a\n    interrupt: sometimes\n');
    expect(error.code).toBe('INVALID_AGENT');
    expect(error.location.line).toBe(3);
  });

  it('a bad node name is refused', () => {
    expect(loadError('nodes:\n  - name: "9 lives"\n').code).toBe('INVALID_AGENT');
  });

  it('a template syntax error names node and field', () => {
    const error = loadError('nodes:\n  - name: a\n    uses: json.parse\n    with:\n      text: "{{ state.x | }}"\n');
    expect(error.code).toBe('TEMPLATE_ERROR');
    expect(error.node).toBe('a');
  });

  it('a bad goto condition is a template error at load', () => {
    const error = loadError('nodes:\n  - name: a\n    goto:\n      - if: "state.x >"\n        to: __end__\n');
    expect(error.code).toBe('TEMPLATE_ERROR');
  });

  it('interrupt_before naming an unknown node', () => {
    expect(loadError('config:\n  interrupt_before: [zz]\nnodes:\n  - name: a\n').code).toBe('INVALID_AGENT');
  });

  it('an empty file and a non-mapping are refused', () => {
    expect(loadError('').code).toBe('INVALID_AGENT');
    expect(loadError('- a\n- b\n').code).toBe('INVALID_AGENT');
  });

  it('every load error lists its problems in details.errors, messages without the location', () => {
    const error = loadError('nodes:\n  - name: a\n    uses: llm.cal\n  - name: b\n    goto: nowhere\n');
    const problems = error.details['errors'] as Array<Record<string, unknown>>;
    expect(problems.map((problem) => [problem.code, problem.line, problem.node])).toEqual([
      ['UNKNOWN_ACTION', 3, 'a'],
      ['INVALID_AGENT', 5, 'b'],
    ]);
    for (const problem of problems) {
      expect(problem.file).toBe('test.yaml');
      expect(String(problem.message)).not.toMatch(/test\.yaml|node '/);
    }
    // The thrown error is the first problem: its text as message, its place as fields.
    expect(error.message).toBe(problems[0]!.message);
    expect(error.toJSON()).toMatchObject({ file: 'test.yaml', line: 3, column: 11, node: 'a', field: 'uses' });
    expect(formatAgentError(error)).toBe(`test.yaml:3:11, node 'a', field 'uses': ${String(problems[0]!.message)}`);
  });
});
