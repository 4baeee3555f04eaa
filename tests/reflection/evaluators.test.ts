/**
 * The three evaluators through `reflection.evaluate` and `reflection.loop` (docs/spec.md#52-evaluators):
 * TEA 6.1 #6–13 and 6.3 #4–13, #29–31, seed 000's "Schema errors: JSON path" and "Lua sandbox".
 */
import { describe, expect, it } from 'vitest';
import { agentYaml, loadError, run } from './support.js';

async function evaluate(
  params: Record<string, unknown>,
  options: { responses?: unknown[]; state?: Record<string, unknown>; settings?: Record<string, unknown> } = {},
) {
  const yaml = agentYaml(
    'reflection.evaluate',
    params,
    options.settings !== undefined ? { settings: options.settings } : {},
  );
  const outcome = await run(
    yaml,
    options.state ?? {},
    options.responses !== undefined ? { responses: options.responses } : {},
  );
  expect(outcome.result.error).toBeUndefined();
  return { verdict: outcome.result.state as Record<string, unknown>, calls: outcome.calls };
}

describe('schema evaluator', () => {
  const schema = {
    type: 'object',
    required: ['name', 'age'],
    properties: { name: { type: 'string' }, age: { type: 'integer' } },
  };

  it('valid data scores 1 with no errors (TEA 6.1 #6, 6.3 #4)', async () => {
    const { verdict } = await evaluate({ data: { name: 'Alice', age: 30 }, evaluator_type: 'schema', schema });
    expect(verdict).toMatchObject({ valid: true, score: 1, errors: [], success: true });
  });

  it('a missing field is invalid with path and message; score graded below 1 (TEA 6.1 #7; SPEC: graded, not 0)', async () => {
    const { verdict } = await evaluate({ data: { name: 'Bob' }, evaluator: { type: 'schema', schema } });
    expect(verdict).toMatchObject({ valid: false, score: 0.8 });
    expect(verdict.errors).toEqual([
      expect.objectContaining({ path: '', keyword: 'required', message: expect.stringContaining('age') }),
    ]);
    expect(verdict.suggestions).toEqual(['Add missing required field at path: root']);
  });

  it('a wrong type stays invalid when coercion fails (TEA 6.1 #8) and passes when it succeeds', async () => {
    expect(
      (await evaluate({ data: { name: 'A', age: 'not a number' }, evaluator_type: 'schema', schema })).verdict.valid,
    ).toBe(false);
    expect((await evaluate({ data: { name: 'A', age: '42' }, evaluator_type: 'schema', schema })).verdict.valid).toBe(
      true,
    );
    expect(
      (await evaluate({ data: { name: 'A', age: '42' }, evaluator: { type: 'schema', schema, coerce: false } })).verdict
        .valid,
    ).toBe(false);
  });

  it('errors carry JSON paths into nested data (6.3 #7, seed 000 key scenario 4)', async () => {
    const nested = {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: { email: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
        },
      },
    };
    const { verdict } = await evaluate({
      data: { user: { email: ['x'], tags: ['a', { n: 7 }] } },
      evaluator_type: 'schema',
      schema: nested,
    });
    const errors = verdict.errors as Array<{ path: string; dotted_path: string }>;
    expect(errors.map((error) => error.path).sort()).toEqual(['/user/email', '/user/tags/1']);
    expect(errors.map((error) => error.dotted_path).sort()).toEqual(['user.email', 'user.tags[1]']);
    expect(verdict.suggestions).toEqual(expect.arrayContaining(['Fix type at path: user.email']));
  });

  it('resolves $ref to the agent schemas: and to host schemas, by name', async () => {
    const yaml = JSON.stringify({
      name: 'refs',
      schemas: { person: { type: 'object', required: ['name'] } },
      nodes: [
        { name: 'a', uses: 'reflection.evaluate', output: 'a', with: { data: {}, schema: { $ref: 'person' } } },
        {
          name: 'b',
          uses: 'reflection.evaluate',
          output: 'b',
          with: { data: { n: 1 }, evaluator: { type: 'schema', schema: 'hosted' } },
        },
      ],
    });
    const { result } = await run(yaml, {}, { schemas: { hosted: { type: 'object', required: ['n'] } } });
    expect(result.state.a).toMatchObject({ valid: false });
    expect(result.state.b).toMatchObject({ valid: true });
  });

  it('LLM output JSON text is parsed before validation', async () => {
    const { verdict } = await evaluate({
      data: '```json\n{"name": "A", "age": 3}\n```',
      evaluator_type: 'schema',
      schema,
    });
    expect(verdict.valid).toBe(true);
  });
});

describe('response_format: schema (constrained decoding with the evaluator schema)', () => {
  const schema = {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' } },
    $defs: { unused: { type: 'string' } },
  };

  it('sends the schema evaluator schema as json_schema response_format to generator and corrector', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'Give a name', response_format: 'schema' },
      evaluator: { type: 'schema', schema: { ...schema, properties: { name: { type: 'string', minLength: 3 } } } },
      corrector: {
        uses: 'llm.call',
        with: { prompt: 'Fix {{ state.reflection_output | tojson }}', response_format: 'schema' },
      },
    });
    const { result, calls } = await run(yaml, {}, { responses: ['{"name": "Al"}', '{"name": "Alice"}'] });
    expect(result.state).toMatchObject({ valid: true, iterations: 2 });
    for (const call of calls) {
      expect(call.request.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'output', schema: { required: ['name'] } },
      });
    }
  });

  it('is refused at load without an inline, self-contained schema evaluator', () => {
    const generator = { action: 'llm.call', prompt: 'x', response_format: 'schema' };
    expect(
      loadError(agentYaml('reflection.loop', { generator, evaluator: { type: 'lua', run: 'return true' } })).code,
    ).toBe('INVALID_PARAMS');
    expect(
      loadError(agentYaml('reflection.loop', { generator, evaluator: { type: 'schema', schema: 'person' } })).code,
    ).toBe('INVALID_PARAMS');
    const error = loadError(
      JSON.stringify({
        name: 'x',
        schemas: { person: { type: 'object' } },
        nodes: [
          { name: 'reflect', uses: 'reflection.loop', with: { generator, evaluator: { schema: { $ref: 'person' } } } },
        ],
      }),
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain('self-contained');
  });
});

describe('llm evaluator (judge)', () => {
  it('passes on {"valid": true, "score": 0.9, "reason"} (TEA 6.1 #9)', async () => {
    const { verdict, calls } = await evaluate(
      { data: 'Some output', evaluator_type: 'llm', prompt: 'Is this good?' },
      { responses: ['{"valid": true, "score": 0.9, "reason": "Good output"}'] },
    );
    expect(verdict).toMatchObject({ valid: true, score: 0.9, feedback: 'Good output', errors: [] });
    const messages = calls[0]!.request.messages;
    expect(messages[0]!.role).toBe('system');
    expect(messages[0]!.content).toContain('"valid"');
    expect(messages.at(-1)!.content).toContain('Is this good?');
    expect(messages.at(-1)!.content).toContain('Some output');
  });

  it('fails on {"valid": false, "score": 0.3, "reason", "suggestions"} (TEA 6.1 #10)', async () => {
    const { verdict } = await evaluate(
      { data: 'x', evaluator_type: 'llm' },
      {
        responses: ['{"valid": false, "score": 0.3, "reason": "Missing key info", "suggestions": ["Add more detail"]}'],
      },
    );
    expect(verdict).toMatchObject({ valid: false, score: 0.3, suggestions: ['Add more detail'] });
    expect(verdict.errors).toEqual([expect.objectContaining({ message: 'Missing key info' })]);
  });

  it("accepts Rust TEA's pass/feedback form (6.3 #29) and prose-wrapped JSON (6.3 #30)", async () => {
    expect(
      (
        await evaluate(
          { data: 'x', evaluator_type: 'llm' },
          { responses: ['{"pass": true, "score": 0.95, "feedback": "Looks good!"}'] },
        )
      ).verdict,
    ).toMatchObject({ valid: true, score: 0.95, feedback: 'Looks good!' });
    expect(
      (
        await evaluate(
          { data: 'x', evaluator_type: 'llm' },
          { responses: ['Here is my verdict: {"pass": false, "score": 0.3, "feedback": "weak"} hope it helps'] },
        )
      ).verdict,
    ).toMatchObject({ valid: false, score: 0.3 });
  });

  it('SPEC differs from TEA: a fenced {"valid": false} is invalid, never "valid because the word appears"', async () => {
    const { verdict } = await evaluate(
      { data: 'x', evaluator_type: 'llm' },
      { responses: ['```json\n{"valid": false, "reason": "not valid at all"}\n```'] },
    );
    expect(verdict).toMatchObject({ valid: false, score: 0 });
  });

  it('an unparseable reply is an invalid attempt with the raw text as feedback (6.3 #31)', async () => {
    const { verdict } = await evaluate(
      { data: 'x', evaluator_type: 'llm' },
      { responses: ['This looks valid to me, well done.'] },
    );
    expect(verdict).toMatchObject({ valid: false, score: 0, feedback: 'This looks valid to me, well done.' });
    expect((verdict.errors as Array<{ type: string }>)[0]!.type).toBe('evaluator_error');
    expect((await evaluate({ data: 'x', evaluator_type: 'llm' }, { responses: ['42'] })).verdict.valid).toBe(false);
  });

  it('sends few-shot examples as user/assistant pairs before the prompt', async () => {
    const { calls } = await evaluate(
      {
        data: 'candidate',
        evaluator: {
          type: 'llm',
          prompt: 'Judge {{ output }}',
          examples: [
            { input: 'good one', output: { valid: true, score: 1 } },
            { input: 'bad one', output: '{"valid": false}' },
          ],
        },
      },
      { responses: ['{"valid": true}'] },
    );
    const roles = calls[0]!.request.messages.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(calls[0]!.request.messages[2]!.content).toContain('"valid": true');
    expect(calls[0]!.request.messages.at(-1)!.content).toBe('Judge candidate');
  });

  it('uses settings.llm defaults, overridden per evaluator (model, temperature)', async () => {
    const { calls } = await evaluate(
      { data: 'x', evaluator: { type: 'llm', model: 'judge-model', temperature: 0 } },
      {
        responses: ['{"valid": true}'],
        settings: { llm: { provider: 'scripted', model: 'default-model', temperature: 0.7, scripted: ['unused'] } },
      },
    );
    expect(calls[0]!.request.model).toBe('judge-model');
    expect(calls[0]!.request.temperature).toBe(0);
  });

  it('the default judge prompt shows the generator task and the output', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: { action: 'llm.call', prompt: 'Name three teas.' },
      evaluator: { type: 'llm' },
    });
    const { result, calls } = await run(
      yaml,
      {},
      { responses: ['sencha, oolong, pu-erh', '{"valid": true, "score": 1}'] },
    );
    expect(result.state.valid).toBe(true);
    const judged = calls[1]!.request.messages.at(-1)!.content as string;
    expect(judged).toContain('Name three teas.');
    expect(judged).toContain('sencha, oolong, pu-erh');
    expect(result.state.reflection_task).toBeUndefined();
  });

  it('a failing judge call fails the node with its typed error (infrastructure, not an invalid attempt)', async () => {
    const yaml = agentYaml('reflection.evaluate', { data: 'x', evaluator_type: 'llm' });
    const { result } = await run(yaml, {}, { responses: [{ error: { code: 'LLM_HTTP_503', message: 'down' } }] });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'LLM_HTTP_503' });
  });

  it('a judge reply that does not parse stays an invalid verdict (content failure)', async () => {
    const { verdict } = await evaluate(
      { data: 'x', evaluator_type: 'llm' },
      { responses: ['I would rather not say.'] },
    );
    expect(verdict).toMatchObject({ valid: false, success: true });
  });

  it('drives an LLM-judge revision loop with reflection_feedback', async () => {
    const yaml = agentYaml('reflection.loop', {
      generator: {
        action: 'llm.call',
        prompt: 'Write a tagline.{% if state.reflection_feedback %} Fix: {{ state.reflection_feedback }}{% endif %}',
      },
      evaluator: { type: 'llm', prompt: 'Is "{{ output }}" under 5 words?' },
      max_iterations: 3,
    });
    const { result, calls } = await run(
      yaml,
      {},
      {
        responses: [
          'A very long tagline that rambles on',
          '{"valid": false, "score": 0.2, "reason": "too long"}',
          'Tea, anywhere',
          '{"pass": true, "score": 0.9}',
        ],
      },
    );
    expect(result.state).toMatchObject({
      valid: true,
      output: 'Tea, anywhere',
      iterations: 2,
      reflection_feedback: 'too long',
    });
    expect(calls[2]!.request.messages.at(-1)!.content).toContain('Fix: too long');
  });
});

describe('lua evaluator', () => {
  it('a boolean return: valid with score 1 (6.3 #8)', async () => {
    const { verdict } = await evaluate({
      data: { result: 20 },
      evaluator_type: 'lua',
      run: 'return state.output.result == 20',
    });
    expect(verdict).toMatchObject({ valid: true, score: 1 });
  });

  it('a number return: valid at ≥ 0.5 with that score (6.3 #9), or at a custom threshold', async () => {
    expect(
      (await evaluate({ data: { value: 75 }, evaluator_type: 'lua', run: 'return output.value / 100' })).verdict,
    ).toMatchObject({ valid: true, score: 0.75 });
    expect(
      (
        await evaluate({
          data: { value: 75 },
          evaluator: { type: 'lua', run: 'return output.value / 100', threshold: 0.9 },
        })
      ).verdict,
    ).toMatchObject({ valid: false, score: 0.75 });
  });

  it('a table return with errors (6.3 #10, TEA 6.1 #12) and the custom alias (TEA 6.1 #11, #13)', async () => {
    const code =
      'local valid = output.name ~= nil and #output.name > 0\nlocal errors = {}\nif not valid then table.insert(errors, "name is required") end\nreturn {valid = valid, score = valid and 1.0 or 0.0, errors = errors}';
    const { verdict } = await evaluate({ data: { name: '' }, evaluator: { type: 'lua', code } });
    expect(verdict).toMatchObject({ valid: false, score: 0 });
    expect(verdict.errors).toEqual([expect.objectContaining({ message: 'name is required' })]);
    expect(
      (
        await evaluate({
          data: { name: 'Alice', age: 25 },
          evaluator: { type: 'custom', language: 'lua', run: 'return {valid = #output.name > 0, score = 1.0}' },
        })
      ).verdict.valid,
    ).toBe(true);
    expect(
      (await evaluate({ data: { value: 10 }, evaluator: { type: 'custom', run: 'return output.value > 5' } })).verdict,
    ).toMatchObject({ valid: true, score: 1 });
  });

  it('sees the iteration (6.3 #13) and the seed 001 state.reflection_output', async () => {
    expect(
      (
        await evaluate(
          { data: { a: 1 }, evaluator_type: 'lua', run: 'return state.iteration == 3 and iteration == 3' },
          { state: { reflection_iteration: 3 } },
        )
      ).verdict.valid,
    ).toBe(true);
    expect(
      (
        await evaluate({
          data: { name: 'x' },
          evaluator_type: 'lua',
          run: 'return state.reflection_output.name == "x"',
        })
      ).verdict.valid,
    ).toBe(true);
  });

  it.each([
    ['io (6.3 #11)', 'local f = io.open("/etc/passwd") return f ~= nil'],
    ['os.execute (6.3 #12)', 'return os.execute("echo hi") == 0'],
    ['require', 'local m = require("os") return m ~= nil'],
    ['loadfile / dofile', 'return loadfile("/etc/passwd") ~= nil or dofile("/etc/passwd") ~= nil'],
    ['debug', 'return debug.getinfo(1) ~= nil'],
    ['package', 'return package.loaded ~= nil'],
  ])('cannot reach %s: the attempt is invalid, never a file read', async (_label, code) => {
    const { verdict } = await evaluate({ data: { x: 1 }, evaluator_type: 'lua', run: code });
    expect(verdict.valid).toBe(false);
    expect((verdict.errors as Array<{ type: string }>)[0]!.type).toBe('evaluator_error');
  });

  it('a runaway script hits the instruction budget and is an invalid attempt', async () => {
    const { verdict } = await evaluate(
      { data: {}, evaluator_type: 'lua', run: 'while true do end' },
      { settings: { lua: { instructions: 100000 } } },
    );
    expect(verdict.valid).toBe(false);
    expect((verdict.errors as Array<{ message: string }>)[0]!.message).toContain('LUA_BUDGET');
  });
});
