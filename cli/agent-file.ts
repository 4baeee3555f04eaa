/** Reading an agent file for the CLI, with errors printed as file:line:column CODE message. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AgentError,
  formatProblem,
  problemsOf,
  loadAgent,
  type CompiledAgent,
  type ScriptSandbox,
  type ScriptSandboxes,
} from '../src/host.js';
import { ALL_SCRIPT_SANDBOXES, withPrologWhenUsed } from '../src/host-scripts.js';
import { pythonSandboxIfInstalled } from './python/python-sandbox.js';

let python: ScriptSandbox | undefined | null = null;

/** `scripts` plus Python when the optional `pyodide` package is installed (one sandbox per CLI process; its interpreter starts on the first block). */
export function withPythonWhenInstalled(scripts: ScriptSandboxes): ScriptSandboxes {
  if (python === null) python = pythonSandboxIfInstalled();
  return python === undefined ? scripts : Object.freeze({ ...scripts, python });
}

/** Reads and loads an agent file; `hostProviders` are the providers this CLI serves besides the built-in ones (`shell` with --shell-provider). */
export async function loadAgentFile(
  file: string,
  hostProviders: readonly string[] = [],
): Promise<{ agent: CompiledAgent; source: string }> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentError(
      'NOT_FOUND',
      `cannot read agent file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { file },
    );
  }
  const scripts = withPythonWhenInstalled(await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [source]));
  return { agent: loadAgent(source, { file: displayName(file), scripts, hostProviders }), source };
}

/** The file as messages name it: relative to the working directory when inside it. */
export function displayName(file: string): string {
  return path.relative(process.cwd(), file) || file;
}

/**
 * Every problem of a load error, one `file:line:column CODE message` per line (no trailing
 * newline). A capped list ends with a line saying how many more were found.
 */
export function formatLoadError(error: AgentError, fallbackFile: string): string {
  const problems = problemsOf(error, fallbackFile);
  const lines = problems.map(formatProblem);
  const total = typeof error.details['error_count'] === 'number' ? error.details['error_count'] : problems.length;
  if (total > problems.length) lines.push(`${problems[0]!.file}: ${total - problems.length} more errors not shown`);
  return lines.join('\n');
}
