/**
 * Issue 13 point 4: `validate` lists every porting blocker of a TEA file at once: each Python
 * block (also one starting with `#` comments, and `language: python`), each Prolog block, each
 * unknown action, each `provider: shell`, inside steps, loop bodies and branches too, and even
 * when a route of the file cannot be read.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import { problemsOf, type LoadProblem } from '../../src/errors/load-problems.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runCli } from '../support/run-cli.js';
import { findPyodide } from '../../cli/python/python-sandbox.js';

const FILE = path.join(import.meta.dirname, 'porting', 'every-blocker.yaml');

function problems(yaml: string): LoadProblem[] {
  try {
    loadAgent(yaml, { file: 'agent.yaml' });
  } catch (error) {
    if (AgentError.isInstance(error)) return problemsOf(error, 'agent.yaml');
    throw error;
  }
  throw new Error('expected the file to be refused');
}

/** Line, code and the first clause; an unknown action by its name (its refusal text is the actions' own). */
const summary = (list: LoadProblem[]) =>
  list.map(
    (problem) =>
      `${problem.line} ${problem.code} ${problem.code === 'UNKNOWN_ACTION' ? /action '([^']+)'/.exec(problem.message)?.[1] : problem.message.split(';')[0]}`,
  );

describe('every porting blocker in one pass', () => {
  it('lists each Python, Prolog, unknown-action and shell-provider blocker with its line', () => {
    const found = summary(problems(readFileSync(FILE, 'utf8')));
    expect(found).toEqual([
      "4 UNKNOWN_PROVIDER `provider: shell` (TEA's shell provider, which starts a local command such as a model CLI and pipes the prompt to it) is not served by this host: only the Node CLI runs it, when its host names the command (`tea-edge run --shell-provider NAME=COMMAND`), never the agent file alone",
      '7 UNSUPPORTED_LANGUAGE this `run:` (language: python) is Python',
      '13 UNSUPPORTED_LANGUAGE this `run:` is Python',
      '17 UNSUPPORTED_LANGUAGE this `run:` is Prolog',
      '20 UNKNOWN_ACTION a2a.discover',
      // Prolog runs now (issue 16); the main entry's loadAgent has no Prolog sandbox unless given one.
      "22 SCRIPT_ENGINE_NOT_LOADED this engine has no prolog sandbox: the host must pass one (import { loadPrologSandbox } from 'tea-edge/prolog', then loadAgent(text, { scripts: { prolog: await loadPrologSandbox() } }))",
      '25 UNSUPPORTED_LANGUAGE this `run:` is Python',
      '33 UNSUPPORTED_LANGUAGE this `run:` is Python',
      '36 UNSUPPORTED_LANGUAGE this `run:` is Python',
      '45 UNKNOWN_ACTION web.crawl',
      "48 SCRIPT_ENGINE_NOT_LOADED this engine has no prolog sandbox: the host must pass one (import { loadPrologSandbox } from 'tea-edge/prolog', then loadAgent(text, { scripts: { prolog: await loadPrologSandbox() } }))",
      "52 UNKNOWN_PROVIDER `provider: shell` (TEA's shell provider, which starts a local command such as a model CLI and pipes the prompt to it) is not served by this host: only the Node CLI runs it, when its host names the command (`tea-edge run --shell-provider NAME=COMMAND`), never the agent file alone",
      '55 INVALID_AGENT nodes[5].goto: Instance type "object" is invalid. Expected "string" or "array".',
      '57 UNSUPPORTED_LANGUAGE this `run:` is Python',
    ]);
  });

  it('says why Python and Prolog cannot run and what to write instead', () => {
    const [python] = problems('nodes:\n  - name: a\n    run: |\n      # just a comment\n      x = 1\n');
    expect(python!.message).toContain(
      "this host has no Python sandbox (the Node CLI runs Python when the optional package `pyodide` is installed: npm install pyodide; a Deno host gives one with createDenoPythonSandbox; the browser studio does not run Python; on Cloudflare Workers use Cloudflare's Python Workers), or rewrite it in Lua",
    );
    const [prolog] = problems('nodes:\n  - name: a\n    run: "state(count, C), C2 is C + 1, return(count, C2)."\n');
    expect(prolog!.message).toContain('this engine has no Prolog sandbox (withPrologWhenUsed loads it)');
  });

  it('Lua that merely shares a sign with Python still loads', () => {
    expect(() => loadAgent('nodes:\n  - name: a\n    run: |\n      return {}\n', { file: 'agent.yaml' })).not.toThrow();
    expect(() =>
      loadAgent('nodes:\n  - name: a\n    run: |\n      local n = #state\n      return {n = n}\n', {
        file: 'agent.yaml',
      }),
    ).not.toThrow();
  });

  it('validate --json reports them all (the CLI loads Prolog, and Python where pyodide is installed, so those blocks are no blockers)', async () => {
    const outcome = await runCli(['validate', '--json', FILE]);
    expect(outcome.code).toBe(2);
    const report = JSON.parse(outcome.stdout) as { errors: Array<{ code: string; line: number }> };
    const pythonLines = [7, 13, 25, 33, 36, 57];
    const lines = [4, 7, 13, 20, 25, 33, 36, 45, 52, 55, 57].filter(
      (line) => findPyodide() === undefined || !pythonLines.includes(line),
    );
    expect(report.errors.map((error) => error.line)).toEqual(lines);
  });
});
