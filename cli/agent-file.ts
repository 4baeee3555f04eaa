/** Reading an agent file for the CLI, with errors printed as file:line:column code message. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentError } from '../src/errors/agent-error.js';
import { loadAgent } from '../src/graph/load-agent.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';

export async function loadAgentFile(file: string): Promise<{ agent: CompiledAgent; source: string }> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentError('NOT_FOUND', `cannot read agent file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { file });
  }
  return { agent: loadAgent(source, { file: path.relative(process.cwd(), file) || file }), source };
}

/** `file:line:column CODE message` (the location prefix is dropped from the message). */
export function formatLoadError(error: AgentError, fallbackFile: string): string {
  const { file = fallbackFile, line, column } = error.location;
  const place = [file, line, column].filter((part) => part !== undefined).join(':');
  const message = error.message.startsWith(`${file}`) ? error.message.replace(/^[^ ]*?:(?:\d+:?)*(?:, )?/, '') : error.message;
  return `${place} ${error.code} ${message.replace(/^: /, '')}`;
}
