/**
 * Closed shapes through `loadAgent` in Node: every corpus file fails with exactly its problems
 * (code, line, column, node, field, suggestion) in file order, the agent files the project ships
 * still load, and the load error carries every problem in `details.errors` (capped at 50).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPythonSandbox } from '../../cli/python/python-sandbox.js';
import { createActionRegistry } from '../../src/builtins.js';
import { AgentError } from '../../src/core/agent-error.js';
import { formatProblem, MAX_LOAD_PROBLEMS, problemsOf, type LoadProblem } from '../../src/errors/load-problems.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { prologSandbox } from '../../src/prolog/prolog-script-sandbox.js';
import { runAgent } from '../../src/graph/run-agent.js';
import { BUDGET_CEILINGS } from '../../src/graph/run-budget.js';
import agentSchema from '../../src/spec/agent-schema.json';
import { ROOT } from '../support/run-cli.js';
import { AGENTS_DIR, MISTAKES, type ExpectedProblem } from './corpus.js';

function loadFailure(source: string, file = 'agent.yaml'): AgentError {
  try {
    loadAgent(source, { file });
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the agent loaded');
}

function expectProblems(actual: LoadProblem[], expected: ExpectedProblem[], file: string): void {
  expect(actual.map(formatProblem), 'problems, in order').toHaveLength(expected.length);
  expected.forEach((want, index) => {
    const got = actual[index]!;
    expect({ code: got.code, line: got.line, column: got.column, file: got.file }, formatProblem(got)).toEqual({
      code: want.code,
      line: want.line,
      column: want.column,
      file,
    });
    expect(got.message).toContain(want.says);
    expect(got.message, 'the message is text only').not.toContain(`${file}:`);
    if (want.node !== undefined) expect(got.node).toBe(want.node);
    if (want.field !== undefined) expect(got.field).toBe(want.field);
  });
}

describe('the misspelled-agent corpus (loadAgent)', () => {
  for (const mistake of MISTAKES) {
    it(`${mistake.file}: ${mistake.what}`, () => {
      const file = `agents/${mistake.file}`;
      const error = loadFailure(readFileSync(path.join(AGENTS_DIR, mistake.file), 'utf8'), file);
      const problems = problemsOf(error, file);
      expectProblems(problems, mistake.problems, file);
      // The thrown error is the first problem.
      expect(error.code).toBe(mistake.problems[0]!.code);
      expect(error.location.line).toBe(mistake.problems[0]!.line);
      expect(error.message).toBe(problems[0]!.message);
    });
  }

  it('keys TEA and tea-edge both support still load (aliases, metadata, templated provider)', () => {
    const agent = loadAgent(readFileSync(path.join(AGENTS_DIR, 'accepted-tea-keys.yaml'), 'utf8'), {
      file: 'accepted-tea-keys.yaml',
    });
    expect([...agent.nodes.keys()]).toEqual(['start', 'ask', 'steps']);
    // A TEA logging key changes nothing in a run: accepted, with a warning.
    expect(agent.warnings.join('\n')).toMatch(/`observability`.*ignored/);
  });

  /** Fixtures of the web demo's editor tests (agents with several mistakes, marked in the editor) and of serve's listing of invalid agents. */
  const BROKEN_ON_PURPOSE = new Set([
    'tests/browser/fixtures/three-misspellings.yaml',
    'tests/browser/fixtures/two-problems.yaml',
    'tests/validate/porting/every-blocker.yaml',
    'tests/browser/fixtures/server-agents-form/broken-action.yaml',
  ]);

  it('every agent file the project ships loads without errors', () => {
    const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => file !== '' && !file.startsWith('tests/validate/agents/') && !BROKEN_ON_PURPOSE.has(file));
    expect(files.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const file of files) {
      try {
        // Every script language this package ships: the Prolog and Python examples and corpus load too
        // (the Python sandbox starts its interpreter on the first block, never at load).
        loadAgent(readFileSync(path.join(ROOT, file), 'utf8'), {
          file,
          scripts: {
            ...ALL_SCRIPT_SANDBOXES,
            prolog: prologSandbox,
            python: createPythonSandbox({ pyodideDir: 'not-started-at-load' }),
          },
        });
      } catch (error) {
        failures.push(...problemsOf(error as AgentError, file).map(formatProblem));
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('closed shapes', () => {
  it('an unknown key with no close match lists the known keys', () => {
    const error = loadFailure(
      'nodes:\n  - name: a\n    uses: json.parse\n    with:\n      text: "{}"\n      zzzzzzzz: 1\n',
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toBe('unknown key `zzzzzzzz` in the parameters of json.parse; known: text, strict');
  });

  it('a literal provider in action parameters must be a preset too; case and spaces do not matter', () => {
    const error = loadFailure(
      'nodes:\n  - name: r\n    uses: reason.cot\n    with: { problem: p, provider: lmstuido }\n',
    );
    expect(error.code).toBe('UNKNOWN_PROVIDER');
    expect(error.message).toContain('did you mean `lmstudio`?');
    expect(error.location.field).toBe('provider');
    expect(() =>
      loadAgent('nodes:\n  - name: r\n    uses: llm.call\n    with: { prompt: p, provider: " Ollama " }\n'),
    ).not.toThrow();
  });

  it('sub-steps are closed: their keys and their parameters', () => {
    const problems = problemsOf(
      loadFailure(
        'nodes:\n  - name: s\n    steps:\n      - name: one\n        uses: llm.call\n        with: { promt: hi }\n      - name: two\n        run: "return {}"\n        outptu: x\n',
      ),
      'agent.yaml',
    );
    expect(problems.map((problem) => [problem.line, problem.code, problem.message.split(';')[1]])).toEqual([
      [6, 'INVALID_PARAMS', ' did you mean `prompt`?'],
      [9, 'INVALID_AGENT', ' did you mean `output`?'],
    ]);
  });

  it('every built-in action publishes a closed parameter schema', () => {
    for (const action of createActionRegistry().list()) {
      const parameters = action.parameters ?? {};
      expect(parameters.additionalProperties, action.name).toBe(false);
    }
  });

  it('keys of a generator are checked against the action it names, under with: too', () => {
    const error = loadFailure(
      'nodes:\n  - name: r\n    uses: reflection.loop\n    with:\n      generator:\n        action: json.parse\n        with: { txt: "{}" }\n      evaluator: { type: lua, run: "return true" }\n',
    );
    expect(error.message).toContain('unknown key `txt` in `generator.with` of reflection.loop; did you mean `text`?');
    expect(error.location.line).toBe(7);
  });

  it('reflection.correct flat form accepts the parameters of its corrector_action and nothing else', () => {
    const base = 'nodes:\n  - name: c\n    uses: reflection.correct\n    with:\n      corrector_action: json.parse\n';
    expect(() => loadAgent(`${base}      text: "{}"\n`)).not.toThrow();
    expect(loadFailure(`${base}      txet: "{}"\n`).message).toContain('did you mean `text`?');
  });

  it('an evaluator is checked by its type: a schema evaluator has no prompt', () => {
    const error = loadFailure(
      'nodes:\n  - name: e\n    uses: reflection.evaluate\n    with:\n      evaluator: { type: schema, schema: { type: object }, prompt: "judge" }\n',
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain('unknown key `prompt` in `evaluator` of reflection.evaluate');
  });

  it('a reason.react tool entry and a few-shot example are closed too', () => {
    expect(
      loadFailure(
        'nodes:\n  - name: r\n    uses: reason.react\n    with:\n      goal: g\n      tools: [{ name: math.calculate, teir: 1 }]\n',
      ).message,
    ).toContain('did you mean `tier`?');
    expect(
      loadFailure(
        'nodes:\n  - name: r\n    uses: reason.cot\n    with:\n      problem: p\n      few_shot_examples: [{ problem: a, anwser: b }]\n',
      ).message,
    ).toContain('did you mean `answer`?');
  });

  it('a literal value above a parameter ceiling is refused at load', () => {
    const error = loadFailure(
      'nodes:\n  - name: r\n    uses: reflection.loop\n    with:\n      generator: { run: "return {}" }\n      evaluator: { type: lua, run: "return true" }\n      max_iterations: 101\n',
    );
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toBe('`max_iterations` is 101, above its ceiling 100');
  });

  it('TEA settings that change behaviour are errors; logging ones are warnings', () => {
    const error = loadFailure('settings:\n  ltm: { backend: sqlite }\n  auto_trace: true\nnodes:\n  - name: a\n');
    expect(problemsOf(error, 'agent.yaml').map((problem) => problem.message)).toEqual([
      '`settings.ltm` (long-term memory) is not supported by tea-edge; use memory.store / memory.retrieve',
    ]);
    expect(loadAgent('settings:\n  auto_trace: true\nnodes:\n  - name: a\n').warnings[0]).toMatch(
      /auto_trace.*ignored/,
    );
    // Keys TEA's Python never reads where they are written: warnings saying what was meant.
    expect(loadAgent('settings:\n  llm: { default_model: llama3.2 }\nnodes:\n  - name: a\n').warnings).toEqual([
      '`settings.llm.default_model` is ignored (TEA ignores it too; the run goes on without it): write `model` (line 2)',
    ]);
    const misplaced = loadAgent(
      'interrupt_before: [a]\nnodes:\n  - name: a\n    uses: llm.call\n    params: { prompt: hi }\n    with: { prompt: hi }\n    next: a\n',
    );
    expect(misplaced.warnings).toEqual([
      'a top-level `interrupt_before:` is ignored (TEA ignores it too; the run goes on without it): write it under `config:` (`config: {interrupt_before: [node]}`) or `interrupt: before` on the node (line 1)',
      "node 'a': a node `params:` is ignored (TEA ignores it too; the run goes on without it): action parameters go under `with:` (line 5)",
      "node 'a': a node `next:` is ignored (TEA ignores it too; the run goes on without it): write `goto: <node>` (or an edge) (line 7)",
    ]);
    // TEA's agent.* docs write params:/outputs: on nodes; both runtimes read neither.
    expect(loadAgent(readFileSync(path.join(AGENTS_DIR, 'tea-params-outputs.yaml'), 'utf8')).warnings).toEqual([
      "node 'review': a node `params:` is ignored (TEA ignores it too; the run goes on without it): action parameters go under `with:` (line 6)",
      "node 'review': a node `outputs:` is ignored (TEA ignores it too; the run goes on without it): write `output: <key>` and shape the result in a `run: {type: expression}` node (line 9)",
    ]);
    // A key TEA knows nowhere stays an error naming the nearest known one.
    expect(loadFailure('nodes:\n  - name: a\n    uses: llm.call\n    wiht: { prompt: hi }\n').message).toContain(
      'did you mean `with`?',
    );
    // The same split inside action parameters: Azure deployments are refused, retry delays ignored.
    const llm = 'nodes:\n  - name: a\n    uses: llm.call\n    with: { prompt: hi, base_delay: 2 }\n';
    expect(loadAgent(llm).warnings).toEqual([
      "node 'a' base_delay: `base_delay` (retries back off exponentially with jitter) is ignored by tea-edge",
    ]);
    expect(loadFailure(llm.replace('base_delay: 2', 'deployment: gpt4')).message).toMatch(
      /^`deployment` \(Azure OpenAI\) is not supported by tea-edge/,
    );
  });

  it('a Python block that reads host files or imports beyond the standard library loads with a warning saying so', () => {
    const python = createPythonSandbox({ pyodideDir: 'not-started-at-load' });
    const agent = loadAgent(
      'nodes:\n  - name: read\n    language: python\n    run: |\n      import yaml\n      data = yaml.safe_load(open("config.yaml"))\n',
      { scripts: { ...ALL_SCRIPT_SANDBOXES, python } },
    );
    expect(agent.warnings).toEqual([
      "node 'read': this Python block reads or writes host files (the sandbox has an empty in-memory file system) (line 5)",
      "node 'read': this Python block imports `yaml`, beyond the standard library (not in the sandbox) (line 5)",
    ]);
  });

  it('a dynamic_parallel node without a branch body is one problem naming what it needs', () => {
    const error = loadFailure(
      'nodes:\n  - name: fan\n    type: dynamic_parallel\n    items: "{{ state.xs }}"\n    item_var: x\n    fan_in: fan\n',
    );
    expect(problemsOf(error, 'agent.yaml').map((problem) => problem.code)).toEqual(['INVALID_AGENT']);
    expect(error.message).toContain('exactly one of `action:` or `steps:`');
  });
});

describe('non-finite numbers', () => {
  for (const [text, shown] of [
    ['.inf', '.inf'],
    ['-.inf', '-.inf'],
    ['.nan', '.nan'],
    ['1e400', '.inf'],
  ] as const) {
    it(`${text} is refused wherever it appears, naming the field`, () => {
      const error = loadFailure(
        `settings:\n  llm:\n    temperature: ${text}\n  limits:\n    max_duration_ms: ${text}\nnodes:\n  - name: a\n    uses: reason.react\n    with: { goal: g, max_steps: ${text} }\n`,
      );
      const messages = problemsOf(error, 'agent.yaml').map((problem) => problem.message);
      expect(messages).toHaveLength(3);
      expect(messages[0]).toContain(`\`settings.llm.temperature\` is ${shown}`);
      expect(messages[1]).toContain(`\`settings.limits.max_duration_ms\` is ${shown}`);
      expect(messages[2]).toContain(`\`nodes[0].with.max_steps\` is ${shown}`);
    });
  }

  it('every limit has its host ceiling', () => {
    const limits = { max_steps: 100_001, max_llm_calls: 10_001, max_tokens: 100_000_001, max_duration_ms: 86_400_001 };
    const yaml = `settings:\n  limits:\n${Object.entries(limits)
      .map(([key, value]) => `    ${key}: ${value}`)
      .join('\n')}\n  parallel:\n    max_concurrency: 65\nnodes:\n  - name: a\n`;
    const problems = problemsOf(loadFailure(yaml), 'agent.yaml');
    expect(problems.map((problem) => problem.message.split(':')[0])).toEqual([
      'settings.limits.max_steps',
      'settings.limits.max_llm_calls',
      'settings.limits.max_tokens',
      'settings.limits.max_duration_ms',
      'settings.parallel.max_concurrency',
    ]);
    // The published schema and the engine's budget table name the same ceilings.
    const schemaLimits = (
      agentSchema as {
        definitions: { settings: { properties: { limits: { properties: Record<string, { maximum: number }> } } } };
      }
    ).definitions.settings.properties.limits.properties;
    expect(Object.fromEntries(Object.entries(schemaLimits).map(([key, value]) => [key, value.maximum]))).toEqual(
      BUDGET_CEILINGS,
    );
    const atCeiling =
      'settings:\n  limits: { max_steps: 100000, max_llm_calls: 10000, max_tokens: 100000000, max_duration_ms: 86400000 }\nnodes:\n  - name: a\n';
    expect(() => loadAgent(atCeiling)).not.toThrow();
  });
});

describe('every error at once', () => {
  it('reading, graph and compile problems come together, in file order', () => {
    const yaml = [
      'nodes:', //                                   1
      '  - name: a', //                              2
      '    run: "return {"', //                      3  Lua syntax (compile)
      '  - name: b', //                              4
      '    uses: llm.cal', //                        5  unknown action (compile)
      '  - name: c', //                              6
      '    interrupt: sometimes', //                 7  schema enum (reading)
      '  - name: d', //                              8
      '    goto: bb', //                             9  unknown goto target (graph)
      '',
    ].join('\n');
    const problems = problemsOf(loadFailure(yaml, 'many.yaml'), 'many.yaml');
    expect(problems.map((problem) => [problem.line, problem.code])).toEqual([
      [3, 'LUA_SYNTAX'],
      [5, 'UNKNOWN_ACTION'],
      [7, 'INVALID_AGENT'],
      [9, 'INVALID_AGENT'],
    ]);
  });

  it('a file whose shape cannot be read past reports what it can', () => {
    const problems = problemsOf(loadFailure('setings: {}\nnodes: 5\n', 'broken.yaml'), 'broken.yaml');
    expect(problems.map((problem) => [problem.line, problem.code])).toEqual([
      [1, 'INVALID_AGENT'],
      [2, 'INVALID_AGENT'],
    ]);
    expect(problems[1]!.message).toContain('nodes');
  });

  it(`reports at most ${MAX_LOAD_PROBLEMS} problems and counts the rest`, () => {
    const keys = Array.from({ length: 60 }, (_, index) => `      bad_key_${index}: 1`).join('\n');
    const error = loadFailure(`nodes:\n  - name: a\n    uses: json.parse\n    with:\n      text: x\n${keys}\n`);
    expect(error.details['errors']).toHaveLength(MAX_LOAD_PROBLEMS);
    expect(error.details['error_count']).toBe(60);
  });

  it('formatProblem prints one line per problem, control characters escaped', () => {
    const error = loadFailure('nodes:\n  - name: a\n    "evil\\u001b[31m\\nkey": 1\n');
    const line = formatProblem(problemsOf(error, 'agent.yaml')[0]!);
    expect(line).toMatch(/^agent\.yaml:3:5 INVALID_AGENT unknown key `evil\\x1b\[31m\\x0akey`/);
    expect(line).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe('a templated provider', () => {
  it('is checked when the run calls the model: UNKNOWN_PROVIDER with a suggestion', async () => {
    const agent = loadAgent(
      'variables: { provider: olama }\nsettings:\n  llm: { provider: "{{ variables.provider }}" }\nnodes:\n  - name: ask\n    uses: llm.call\n    with: { prompt: hi }\n',
    );
    const result = await runAgent(agent, {}).result;
    expect(result.status).not.toBe('completed');
    expect(result.error?.code).toBe('UNKNOWN_PROVIDER');
    expect(result.error?.message).toContain('did you mean `ollama`?');
  });
});
