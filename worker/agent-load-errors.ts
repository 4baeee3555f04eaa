/**
 * A server that loads a directory of agents reports every problem of every broken file at once
 * (the load-error contract): one AgentError whose code, message and location are the first
 * problem's, and whose `details.errors` lists the problems in file order, at most 50, each
 * `{code, message, file, line?, column?, node?, field?}` with the message free of its location.
 */
import type { EventError } from '../src/core/events.js';
import { AgentError } from '../src/core/agent-error.js';

export const MAX_LOAD_ERRORS = 50;
const LOCATION_KEYS = ['file', 'line', 'column', 'node', 'field'] as const;

/** One load problem, as `details.errors` carries it: an error's code, text and place. */
export type LoadProblem = Omit<EventError, 'details'>;

/** The problems one failed file reports: its own list when it has one, else the error itself. */
export function problemsOf(error: AgentError): LoadProblem[] {
  const listed = error.details.errors;
  if (Array.isArray(listed) && listed.length > 0) {
    return listed.map((problem) => ({
      ...(error.location.file !== undefined ? { file: error.location.file } : {}),
      ...(problem as LoadProblem),
    }));
  }
  const problem: LoadProblem = { code: error.code, message: error.message };
  for (const key of LOCATION_KEYS)
    if (error.location[key] !== undefined) Object.assign(problem, { [key]: error.location[key] });
  return [problem];
}

/** One error for several failed files (the first file's error when there is only one). */
export function combineLoadErrors(failures: readonly AgentError[]): AgentError {
  const first = failures[0]!;
  if (failures.length === 1) return first;
  const errors = failures.flatMap(problemsOf).slice(0, MAX_LOAD_ERRORS);
  return new AgentError(first.code, first.message, { ...first.location, details: { ...first.details, errors } });
}
