/**
 * Load problems as CodeMirror diagnostics: each one at its line and column (to the end of that
 * line), a problem without a place on the first line. Every problem is marked, not just the first.
 */
import type { Diagnostic } from '@codemirror/lint';
import type { Text } from '@codemirror/state';
import type { AgentProblem } from './protocol.js';

/** Places each problem at its line:column (the whole first line when it has no place). */
export function toDiagnostics(doc: Text, problems: AgentProblem[]): Diagnostic[] {
  return problems.map((problem) => {
    const lineNumber = Math.min(Math.max(problem.line ?? 1, 1), doc.lines);
    const line = doc.line(lineNumber);
    const from = Math.min(line.from + Math.max((problem.column ?? 1) - 1, 0), line.to);
    const to = from < line.to ? line.to : Math.min(from + 1, doc.length);
    return { from, to: Math.max(to, from), severity: 'error', message: problemText(problem) };
  });
}

/** `CODE (node n, field f): message`, the way the editor and the problem list word a problem. */
export function problemText(problem: AgentProblem): string {
  const where = [
    problem.node !== undefined ? `node ${problem.node}` : '',
    problem.field !== undefined ? `field ${problem.field}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${problem.code}${where ? ` (${where})` : ''}: ${problem.message}`;
}
