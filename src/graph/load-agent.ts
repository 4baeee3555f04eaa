/** `loadAgent`: agent file text → CompiledAgent (parse under limits, check, compile). */
import { toAgentError } from '../errors/agent-error.js';
import { readAgentSpec, type ReadAgentOptions } from '../spec/read-agent-spec.js';
import { compileAgent, type CompileOptions } from './compile-agent.js';
import type { CompiledAgent } from './compiled-agent.js';

export type LoadAgentOptions = ReadAgentOptions & CompileOptions;

/** Parses, checks and compiles an agent file. Throws AgentError with file:line:column. */
export function loadAgent(source: string, options: LoadAgentOptions = {}): CompiledAgent {
  try {
    return compileAgent(readAgentSpec(source, options), options);
  } catch (error) {
    throw toAgentError(error, 'INVALID_AGENT', options.file !== undefined ? { file: options.file } : {});
  }
}

