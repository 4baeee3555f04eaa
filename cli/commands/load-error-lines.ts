/**
 * The lines `run` and `resume` print for an agent that does not load: every problem of
 * `details.errors` (the load-error list, in file order) when the error carries one, else the one
 * error; each as `file:line:column CODE message` on its own line, control characters escaped so a
 * newline inside an action name cannot forge a line.
 */
import type { AgentError } from '../../src/host.js';
import { formatLoadError } from '../agent-file.js';
import { oneLine } from '../terminal-text.js';

interface Problem {
  code: string;
  message: string;
  file?: string;
  line?: number;
  column?: number;
}

export function loadErrorLines(error: AgentError, file: string): string {
  const problems = error.details.errors;
  if (!Array.isArray(problems) || problems.length === 0) return `${oneLine(formatLoadError(error, file))}\n`;
  return (problems as Problem[])
    .map((problem) => {
      const place = [problem.file ?? file, problem.line, problem.column].filter((part) => part !== undefined).join(':');
      return `${oneLine(`${place} ${problem.code} ${problem.message}`)}\n`;
    })
    .join('');
}
