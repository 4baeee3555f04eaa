/**
 * What the agent-schema check says, in the words of a load problem: a value of the wrong type
 * where several forms are allowed names every allowed type once, a number past a host ceiling
 * names the ceiling, and a wrong value inside one of the forms names where inside it is.
 */
import { describe, expect, it } from 'vitest';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { captureError } from '../../src/lua/lua-test-helpers.js';

const problems = (yaml: string) =>
  (
    captureError(() => loadAgent(yaml, { file: 'a.yaml' })).details.errors as Array<{ line: number; message: string }>
  ).map((problem) => `${problem.line} ${problem.message}`);

describe('agent-schema problems', () => {
  it('name every type a value may have when its type fits none', () => {
    expect(problems('nodes:\n  - name: a\n    goto: {to: b}\n  - name: b\n    run: return {}\n')).toEqual([
      '3 nodes[0].goto: Instance type "object" is invalid. Expected "string" or "array".',
    ]);
  });

  it('name the ceiling a number is above', () => {
    expect(
      problems('settings:\n  limits:\n    max_llm_calls: 50000\nnodes:\n  - name: a\n    run: return {}\n'),
    ).toEqual(['3 settings.limits.max_llm_calls: 50000 is above the ceiling 10000']);
  });

  it('name the place inside a form that fits the type but not the contents', () => {
    expect(problems('nodes:\n  - name: a\n    run: return {}\n    goto:\n      - to: 5\n')).toEqual([
      '5 nodes[0].goto[0].to: Instance type "number" is invalid. Expected "string".',
    ]);
    expect(problems('nodes:\n  - name: a\n    run: return {}\n    goto: [{to: a, if: 1}]\n')).toEqual([
      '4 nodes[0].goto[0].if: Instance type "number" is invalid. Expected "string", "boolean".',
    ]);
  });
});
