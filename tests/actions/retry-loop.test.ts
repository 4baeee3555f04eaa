/** retry.loop with TEA's semantics, through real agents (validate.schema, a Lua correction node, an LLM correction node). */
import { describe, expect, it } from 'vitest';
import { loadError, runYaml } from '../engine/helpers.js';

const agent = (maxRetries: number, correction: string) => `
settings:
  llm: { provider: scripted, scripted: ['{"name": "Ada", "age": 36}'] }
nodes:
  - name: check
    uses: retry.loop
    with:
      validate: validate.schema
      validate_args:
        data: "{{ state.person }}"
        schema: { type: object, required: [name, age], properties: { age: { type: integer } } }
      correct: fix
      max_retries: ${maxRetries}
${correction}
edges:
  - { from: __start__, to: check }
  - { from: check, to: __end__ }
`;

const luaFix = `  - name: fix
    run: |
      local person = { name = state.person.name, age = state._retry_count + 40 }
      if state._retry_count < 1 then person.age = nil end
      return { person = person, fixes = (state.fixes or 0) + 1 }`;

describe('retry.loop', () => {
  it('valid at once: no correction, _retry_count 0, _retry_exhausted false, the validation result merged', async () => {
    const { result, events } = await runYaml(agent(2, luaFix), { person: { name: 'Ada', age: 36 } });
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ _retry_count: 0, _retry_errors: [], _retry_exhausted: false, valid: true });
    expect(result.state.fixes).toBeUndefined();
    expect(events.some((event) => event.type === 'node_start' && event.node === 'fix')).toBe(false);
  });

  it('runs the correction node until valid; validate_args are rendered again against the corrected state', async () => {
    const { result } = await runYaml(agent(3, luaFix), { person: { name: 'Ada' } });
    expect(result.status).toBe('completed');
    // retry 0: invalid → fix (still no age); retry 1: invalid → fix (age 41); retry 2: valid.
    expect(result.state).toMatchObject({
      _retry_count: 2,
      _retry_exhausted: false,
      valid: true,
      fixes: 2,
      person: { name: 'Ada', age: 41 },
    });
    expect((result.state._retry_result as { valid: boolean }).valid).toBe(true);
  });

  it('gives up after max_retries with _retry_exhausted and the last errors', async () => {
    const { result } = await runYaml(agent(1, luaFix), { person: { name: 'Ada' } });
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ _retry_count: 1, _retry_exhausted: true, valid: false, fixes: 1 });
    expect((result.state._retry_errors as unknown[]).length).toBeGreaterThan(0);
  });

  it('max_retries 0 validates once and never corrects', async () => {
    const { result } = await runYaml(agent(0, luaFix), { person: {} });
    expect(result.state).toMatchObject({ _retry_count: 0, _retry_exhausted: true });
    expect(result.state.fixes).toBeUndefined();
  });

  it('an LLM correction node (TEA docs example shape) feeds the next validation', async () => {
    const llmFix = `  - name: fix
    uses: llm.call
    with: { prompt: "Fix {{ state._retry_errors | tojson }}", response_format: json_object }
    output: { person: "{{ result.content | fromjson }}" }`;
    const { result, events } = await runYaml(agent(2, llmFix), { person: { name: 'Ada' } });
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ _retry_count: 1, valid: true, person: { name: 'Ada', age: 36 } });
    // The correction node's events carry its own name.
    const request = events.find((event) => event.type === 'llm_request')!;
    expect(request.node).toBe('fix');
  });

  it('a correction node that fails (content) ends the loop with correction_error, as TEA does', async () => {
    const failing = `  - name: fix
    run: |
      error("cannot fix")`;
    const { result } = await runYaml(agent(2, failing), { person: {} });
    expect(result.status).toBe('completed');
    expect(result.state).toMatchObject({ valid: false, _retry_exhausted: false });
    const errors = result.state._retry_errors as Array<{ type: string; message: string }>;
    expect(errors.at(-1)).toMatchObject({ type: 'correction_error' });
    expect(errors.at(-1)!.message).toContain("Correction node 'fix' failed");
  });

  it('an infrastructure failure in the correction node ends the node with its own code', async () => {
    const llmFix = `  - name: fix
    uses: llm.call
    with: { prompt: fix }`;
    const yaml = agent(2, llmFix).replace('scripted: [\'{"name": "Ada", "age": 36}\']', 'scripted: []');
    const { result } = await runYaml(
      yaml.replace('provider: scripted, scripted: []', 'api_base: "http://127.0.0.1:9/v1", max_retries: 0'),
      { person: {} },
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('LLM_UNAVAILABLE');
  });

  it('a correction node that does not exist is refused at load, naming it', () => {
    const error = loadError(
      agent(1, '  - { name: other, run: "return {}" }').replace(
        '{ from: check, to: __end__ }',
        '{ from: check, to: other }',
      ),
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain("no node 'fix'");
  });

  it('load-time checks: unknown validation action, missing correct, unknown key', () => {
    const fix =
      '  - { name: x, run: "return {}" }\nedges:\n  - { from: __start__, to: r }\n  - { from: r, to: __end__ }\n';
    expect(
      loadError(`nodes:\n  - { name: r, uses: retry.loop, with: { validate: no.such, correct: x } }\n${fix}`).code,
    ).toBe('UNKNOWN_ACTION');
    expect(
      loadError('nodes:\n  - { name: r, uses: retry.loop, with: { validate: validate.schema } }\n').message,
    ).toContain('correct');
    expect(
      loadError(
        'nodes:\n  - { name: r, uses: retry.loop, with: { validate: validate.schema, correct: r, retries: 2 } }\n',
      ).code,
    ).toBe('INVALID_PARAMS');
  });

  it('the correction node counts as a step in max_steps', async () => {
    const { result } = await runYaml(
      agent(50, luaFix.replace('state._retry_count < 1', 'true')).replace(
        'settings:',
        'settings:\n  limits: { max_steps: 5 }',
      ),
      { person: {} },
    );
    expect(result.error?.code).toBe('BUDGET_EXCEEDED');
  });
});
