/**
 * What every host's Python sandbox shares (Node's process, Deno's and the browser's workers): the
 * ScriptSandbox face (compile, the TEA wrapper's globals, validate's warnings) over a host's way
 * to run one block, and the reading of an interpreter's answer into a result or a coded error.
 */
import {
  AgentError,
  type CompiledScript,
  type ScriptRunOptions,
  type ScriptSandbox,
  type ScriptSource,
} from '../../src/host.js';
import { pythonHostAccess } from './python-host-access.js';

/** An interpreter's answer to one block, as a host receives it. */
export interface Answer {
  id: number;
  answer?: string;
  printed?: string[];
  print_cut?: boolean;
  budget?: 'time' | 'memory';
  fatal?: string;
  elapsed_ms?: number;
  startup_ms?: number;
}

/** Runs one block (`payload`: `{state, variables, wrapper?}` as JSON) and answers its result. */
export type RunBlock = (
  code: string,
  payload: string,
  where: ScriptSource,
  options: ScriptRunOptions,
) => Promise<unknown>;

export function pythonScriptSandbox(runBlock: RunBlock): ScriptSandbox {
  return {
    language: 'python',
    errorCodes: { syntax: 'PYTHON_SYNTAX', runtime: 'PYTHON_ERROR', budget: 'PYTHON_BUDGET' },
    compile(code: string, where: ScriptSource = {}): CompiledScript {
      return {
        language: 'python',
        source: code,
        run(globals, runOptions = {}) {
          const text = typeof globals['code'] === 'string' ? globals['code'] : code;
          // `wrapper: 'reflection'`: TEA's reflection generator/corrector form instead of a node's.
          const payload = {
            state: globals['state'] ?? {},
            variables: globals['variables'] ?? {},
            ...(globals['wrapper'] === 'reflection' ? { wrapper: 'reflection' } : {}),
          };
          return runBlock(text, JSON.stringify(payload), where, runOptions);
        },
      };
    },
    budgetFromSettings() {
      return undefined;
    },
    warningsOf(code) {
      return pythonHostAccess(code).map((what) => `this Python block ${what}`);
    },
  };
}

function place(where: ScriptSource, line?: number | null): Record<string, unknown> {
  return {
    ...(where.node !== undefined ? { node: where.node } : {}),
    field: where.field ?? 'run',
    ...(where.file !== undefined ? { file: where.file } : {}),
    ...(line != null && where.line !== undefined ? { line: where.line + line } : {}),
  };
}

export function cancelled(signal: AbortSignal, where: ScriptSource): Error {
  return AgentError.isInstance(signal.reason)
    ? signal.reason
    : new AgentError('CANCELLED', 'the run was cancelled', place(where));
}

export function settle(
  answer: Answer,
  where: ScriptSource,
  options: ScriptRunOptions,
  resultBytes: number,
  timeoutMs: number,
): unknown {
  for (const line of answer.printed ?? []) options.onPrint?.(line);
  if (answer.print_cut === true) options.onPrint?.('[print output past the limit was dropped]');
  if (answer.budget !== undefined) {
    const message =
      answer.budget === 'time'
        ? `the Python block ran past its time limit (${timeoutMs} ms)`
        : 'the Python block went past its memory limit';
    throw new AgentError('PYTHON_BUDGET', message, {
      ...place(where),
      details: { budget: answer.budget, ...(answer.budget === 'time' ? { limit: timeoutMs } : {}) },
    });
  }
  if (answer.fatal !== undefined || answer.answer === undefined)
    throw new AgentError('PYTHON_ERROR', answer.fatal ?? 'no answer from the Python interpreter', place(where));
  if (answer.answer.length > resultBytes) {
    throw new AgentError(
      'PYTHON_BUDGET',
      `the Python block's result is ${answer.answer.length} bytes of JSON, above the limit ${resultBytes}`,
      { ...place(where), details: { budget: 'result_bytes', limit: resultBytes } },
    );
  }
  const outcome = JSON.parse(answer.answer) as {
    ok: boolean;
    result?: unknown;
    kind?: string;
    message?: string;
    line?: number | null;
  };
  if (outcome.ok) return outcome.result;
  if (outcome.kind === 'interrupted')
    throw new AgentError('PYTHON_BUDGET', `the Python block ran past its time limit (${timeoutMs} ms)`, {
      ...place(where),
      details: { budget: 'time', limit: timeoutMs },
    });
  if (outcome.kind === 'memory')
    throw new AgentError('PYTHON_BUDGET', 'the Python block ran out of memory', {
      ...place(where),
      details: { budget: 'memory' },
    });
  const code = outcome.kind === 'syntax' ? 'PYTHON_SYNTAX' : 'PYTHON_ERROR';
  throw new AgentError(code, outcome.message ?? 'the Python block failed', {
    ...place(where, outcome.line),
    details: { ...(outcome.line != null ? { line: outcome.line } : {}) },
  });
}
