/**
 * `loadAgent`: agent file text → CompiledAgent (parse under limits, check, compile). Every problem
 * of the file is reported at once: one AgentError (the first problem's code, message and place)
 * with `details.errors`, all problems in file order, capped (src/errors/load-problems.ts).
 */
import { toAgentError } from '../core/agent-error.js';
import { loadFailure } from '../errors/load-problems.js';
import { inspectAgentSpec, type ReadAgentOptions } from '../spec/read-agent-spec.js';
import { inspectCompile, type CompileOptions } from './compile-agent.js';
import type { CompiledAgent } from './compiled-agent.js';

export type LoadAgentOptions = ReadAgentOptions & CompileOptions;

/** Parses, checks and compiles an agent file. Throws AgentError with file:line:column and `details.errors`. */
export function loadAgent(source: string, options: LoadAgentOptions = {}): CompiledAgent {
  try {
    const read = inspectAgentSpec(source, options);
    if (read.spec === undefined) throw loadFailure(read.problems);
    // Compile even when reading found problems, so one pass reports them all.
    const compiled = inspectCompile(read.spec, options);
    const problems = [...read.problems, ...compiled.problems];
    if (problems.length > 0 || compiled.agent === undefined) throw loadFailure(problems);
    return compiled.agent;
  } catch (error) {
    throw toAgentError(error, 'INVALID_AGENT', options.file !== undefined ? { file: options.file } : {});
  }
}
