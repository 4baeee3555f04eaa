/**
 * The Node Python sandbox (cli/python/) against TEA's wrapper semantics and hostile blocks. One
 * sandbox (one interpreter process) for the whole file: Pyodide starts in seconds of CPU, so the
 * cases share it; the budget cases that discard an interpreter run last. Needs `dist/` (the
 * process and thread files) and the optional `pyodide` package; skipped without it.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPythonSandbox, findPyodide } from '../../cli/python/python-sandbox.js';
import { AgentError } from '../../src/core/agent-error.js';
import { readFileSync } from 'node:fs';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { ALL_SCRIPT_SANDBOXES } from '../../src/lua/lua-script-sandbox.js';
import { runAgent } from '../../src/graph/run-agent.js';
import type { AgentEvent } from '../../src/core/events.js';

const pyodideDir = findPyodide();
const processScript = path.join(import.meta.dirname, '../../dist/python-process.js');
const MEMORY_CAP = 192 * 1024 * 1024;
const sandbox =
  pyodideDir === undefined
    ? undefined
    : createPythonSandbox({
        pyodideDir,
        processScript,
        timeoutMs: 3000,
        printBytes: 4096,
        resultBytes: 64 * 1024,
        memoryBytes: MEMORY_CAP,
      });
afterAll(() => sandbox?.close());

const LONG = 240_000;

async function run(code: string, state: Record<string, unknown> = {}, printed: string[] = []): Promise<unknown> {
  return sandbox!
    .compile(code, { node: 'n', line: 10 })
    .run({ state, variables: { greeting: 'hi' } }, { onPrint: (line) => printed.push(line) });
}

async function failure(code: string): Promise<AgentError> {
  try {
    await run(code);
  } catch (error) {
    if (AgentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the block to fail');
}

describe('the optional pyodide package', () => {
  // `npm ci` installs optional dependencies: in CI a missing package is a failure, not a skip.
  it.runIf(process.env.CI === 'true')('is installed and found from the package in CI', () => {
    expect(pyodideDir).toBeDefined();
  });
});

describe.skipIf(pyodideDir === undefined)('Python blocks with TEA semantics (Node, Pyodide)', () => {
  it('a block with return: its value is the update; state, variables, json and datetime are there; print is a log line', {
    timeout: LONG,
  }, async () => {
    const printed: string[] = [];
    // TEA examples/yaml_agent_example.yaml, node `process` (shape kept).
    const code =
      'items = state.get("items", [])\nprint("got", len(items))\nreturn {"total": sum(items), "hello": variables["greeting"], "doubled": json.loads(json.dumps([i * 2 for i in items])), "year_ok": datetime.date(2024, 1, 2).year == 2024}';
    expect(await run(code, { items: [1, 2, 3] }, printed)).toEqual({
      total: 6,
      hello: 'hi',
      doubled: [2, 4, 6],
      year_ok: true,
    });
    expect(printed).toEqual(['got 3']);
  });

  it.each([
    [
      'tea-python-word-stats',
      {
        word_count: 14,
        top_words: ['the', 'edge', 'agents'],
        report: '14 words\nmost used: the, edge, agents\nA sentence about agents running at the edge.',
      },
      ['14 words'],
    ],
    [
      'tea-python-triage',
      {
        urgency: 6,
        flags: ['asap', 'cannot', 'down'],
        priority: 'high',
        answer: 'We are on it: an engineer is looking at your server now.',
      },
      [],
    ],
  ])('examples/python/%s runs on its scripted model', { timeout: LONG }, async (name, expected, logs) => {
    const agent = loadAgent(readFileSync(new URL(`../../examples/python/${name}.yaml`, import.meta.url), 'utf8'), {
      file: `${name}.yaml`,
      scripts: { ...ALL_SCRIPT_SANDBOXES, python: sandbox! },
    });
    expect(agent.warnings).toEqual([]);
    const run = runAgent(agent, {});
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(result.error).toBeUndefined();
    expect(result.state).toMatchObject(expected);
    expect(
      events
        .filter((event) => event.type === 'log' && event.data.source === 'python')
        .map((event) => (event.data as { message: string }).message),
    ).toEqual(logs);
  });

  it("a reflection.loop generator and corrector in Python run as TEA's (result = …; TEA examples/reflection/reflection-loop-example.yaml)", {
    timeout: LONG,
  }, async () => {
    // The generator and corrector are TEA's, copied as they are; the evaluator, settings and node shortened.
    const yaml = `name: tea-reflection-python
initial_state: { topic: edge computing }
nodes:
  - name: generate_article
    uses: reflection.loop
    with:
      generator:
        run: |
          topic = state.get("topic", "technology")
          iteration = state.get("reflection_iteration", 1)
          if iteration == 1:
            result = {"title": f"Understanding {topic.title()}", "body": f"An article about {topic}."}
          else:
            result = {"title": f"Understanding {topic.title()}", "summary": f"This article explores the key aspects of {topic}.", "body": f"A comprehensive analysis of {topic}.", "tags": [topic, "research", "analysis"]}
      evaluator:
        type: schema
        schema: { type: object, required: [title, summary, body] }
      corrector:
        run: |
          errors = state.get("reflection_errors", [])
          error_messages = [e.get("message", str(e)) for e in errors]
          result = {"correction_feedback": f"Fix these issues: {'; '.join(error_messages)}", "needs_summary": any("summary" in str(e) for e in errors)}
      max_iterations: 3
    output: article
`;
    const agent = loadAgent(yaml, {
      file: 'tea-reflection-python.yaml',
      scripts: { ...ALL_SCRIPT_SANDBOXES, python: sandbox! },
    });
    const run = runAgent(agent, {});
    for await (const _event of run);
    const result = await run.result;
    expect(result.error).toBeUndefined();
    expect(result.state.article).toMatchObject({
      valid: true,
      iterations: 2,
      output: { title: 'Understanding Edge Computing', tags: ['edge computing', 'research', 'analysis'] },
    });
  });

  it('a block without return: its locals not starting with _ are the update', { timeout: LONG }, async () => {
    expect(
      await run('import re\nwords = re.findall(r"\\w+", state["text"])\ncount = len(words)\n_scratch = 1\n', {
        text: 'a b c',
      }),
    ).toEqual({ words: ['a', 'b', 'c'], count: 3 });
  });

  it('each call starts clean: nothing one block defines is seen by the next', { timeout: LONG }, async () => {
    await run('import builtins\nbuiltins.leak = 1\nglobal_leak = 2\n');
    expect(await run('return {"seen": "global_leak" in globals()}')).toEqual({ seen: false });
  });

  it('errors are typed, with the file line', { timeout: LONG }, async () => {
    const error = await failure('x = 1\nreturn {"y": x / 0}');
    expect(error.code).toBe('PYTHON_ERROR');
    expect(error.message).toContain('ZeroDivisionError');
    expect(error.location.line).toBe(12);
    expect((await failure('return {"a": }')).code).toBe('PYTHON_SYNTAX');
  });

  it.each([
    ['os.system', 'import os\nreturn {"r": os.system("echo PWNED > /tmp/tea-edge-pwned")}', { r: -1 }],
    [
      'open a host file',
      'try:\n    open("/etc/passwd").read()\n    return {"r": "read"}\nexcept OSError as e:\n    return {"r": type(e).__name__}',
      { r: 'FileNotFoundError' },
    ],
    ['list the root', 'import os\nreturn {"r": "etc" in os.listdir("/")}', { r: false }],
    [
      'the environment',
      'import os\nreturn {"r": [k for k in os.environ if k in ("HOME_REAL", "PATH_REAL", "TEA_EDGE_PYODIDE_DIR", "CI", "USER_SECRET")]}',
      { r: [] },
    ],
  ])('hostile: %s reaches nothing of the host', { timeout: LONG }, async (_what, code, expected) => {
    expect(await run(code)).toEqual(expected);
  });

  it.each([
    ['subprocess', 'import subprocess\nsubprocess.run(["ls"])', /OSError|not support/],
    ['import js', 'import js\nreturn {"p": str(js.process)}', /ModuleNotFoundError/],
    [
      'pyodide.ffi to JavaScript',
      'import pyodide.code\npyodide.code.run_js("1")',
      /EvalError|ModuleNotFoundError|ImportError|Error/,
    ],
    ['a socket', 'import socket\ns = socket.socket()\ns.connect(("127.0.0.1", 22))', /OSError|unreachable/],
    ['the recursion bomb', 'def f(n):\n    return f(n + 1)\nreturn {"r": f(0)}', /RecursionError/],
  ])('hostile: %s fails as a Python error', { timeout: LONG }, async (_what, code, says) => {
    const error = await failure(code);
    expect(error.code).toBe('PYTHON_ERROR');
    expect(error.message).toMatch(says);
  });

  it('a huge print keeps the first bytes and says the rest was dropped', { timeout: LONG }, async () => {
    const printed: string[] = [];
    await run('for i in range(20000):\n    print("x" * 100)\nreturn {}', {}, printed);
    expect(printed.join('\n').length).toBeLessThanOrEqual(4096);
    expect(printed.at(-1)).toBe('[print output past the limit was dropped]');
  });

  it('a huge return is PYTHON_BUDGET result_bytes', { timeout: LONG }, async () => {
    const error = await failure('return {"x": "a" * (1024 * 1024)}');
    expect(error.code).toBe('PYTHON_BUDGET');
    expect(error.details['budget']).toBe('result_bytes');
  });

  it('a memory bomb is PYTHON_BUDGET memory', { timeout: LONG }, async () => {
    const error = await failure('x = [1] * (2 ** 31 - 1)\nreturn {}');
    expect(error.code).toBe('PYTHON_BUDGET');
    expect(error.details['budget']).toBe('memory');
  });

  it.each([
    ['one allocation above the cap (fits in wasm32)', 'blob = bytearray(256 * 1024 * 1024)\nreturn {"n": len(blob)}'],
    ['growing past the cap a megabyte at a time', 'xs = []\nwhile True:\n    xs.append(bytearray(1024 * 1024))'],
    [
      'a MemoryError caught by the block, which then returns',
      'try:\n    xs = [bytearray(1024 * 1024) for _ in range(400)]\nexcept MemoryError:\n    pass\nreturn {"survived": True}',
    ],
  ])('the memory cap holds while the block runs: %s', { timeout: LONG }, async (_what, code) => {
    // The cap (192 MiB) is in the wasm binary: without it these would grow to 4 GiB within the time budget.
    const outcome = await run(code).then(
      (value) => ({ value }),
      (error: AgentError) => ({ code: error.code, budget: error.details['budget'] }),
    );
    // A block that catches its own MemoryError may answer; it never held more than the cap.
    if ('value' in outcome) expect(outcome.value).toEqual({ survived: true });
    else expect(outcome).toEqual({ code: 'PYTHON_BUDGET', budget: 'memory' });
    expect(await run('return {"after": len(bytearray(64 * 1024 * 1024))}')).toEqual({ after: 64 * 1024 * 1024 });
  });

  it('an infinite loop is interrupted: PYTHON_BUDGET time, and the next block runs', { timeout: LONG }, async () => {
    const error = await failure('while True:\n    pass');
    expect(error.code).toBe('PYTHON_BUDGET');
    expect(error.details).toMatchObject({ budget: 'time', limit: 3000 });
    expect(await run('return {"after": 1}')).toEqual({ after: 1 });
  });

  it("the run's deadline interrupts a Python block (the run's signal): the run ends with its budget error, the next block runs", {
    timeout: LONG,
  }, async () => {
    const yaml =
      'name: deadline\nsettings:\n  limits: { max_duration_ms: 1000 }\nnodes:\n  - name: spin\n    language: python\n    run: |\n      while True:\n          pass\n';
    const agent = loadAgent(yaml, { file: 'deadline.yaml', scripts: { ...ALL_SCRIPT_SANDBOXES, python: sandbox! } });
    await run('return {}'); // a started interpreter: the deadline falls inside the loop, not the start
    const agentRun = runAgent(agent, {});
    for await (const _event of agentRun);
    const result = await agentRun.result;
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'BUDGET_EXCEEDED', node: 'spin' });
    expect(await run('return {"after": 3}')).toEqual({ after: 3 });
  });

  it('a loop that swallows the interrupt is ended with its interpreter: PYTHON_BUDGET time', {
    timeout: LONG,
  }, async () => {
    const error = await failure(
      'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass',
    );
    expect(error.code).toBe('PYTHON_BUDGET');
    expect(error.details['budget']).toBe('time');
    expect(await run('return {"after": 2}')).toEqual({ after: 2 });
  });
});
