/**
 * Load problems: every error found while reading and compiling an agent file, reported together.
 * A failed load throws ONE AgentError carrying the first problem's code, message and location, and
 * `details.errors`: every problem in file order, capped at MAX_LOAD_PROBLEMS. Each problem keeps
 * its location as fields; its message is text only. `formatProblem` is the one printed form.
 */
import { AgentError, type ErrorCode } from '../core/agent-error.js';
import { cutWithMark } from './cut-mark.js';

/** One load error, as listed in `details.errors` and printed by `validate`. */
export interface LoadProblem {
  code: ErrorCode;
  /** What is wrong, without the location (that is in the other fields). */
  message: string;
  file: string;
  line?: number;
  column?: number;
  node?: string;
  field?: string;
  /**
   * The package import that adds what the engine lacks (`tea-edge/reasoning` for an action,
   * `tea-edge/lua` for a language), on UNKNOWN_ACTION and SCRIPT_ENGINE_NOT_LOADED.
   */
  import?: string;
}

/** The most problems one load reports. */
export const MAX_LOAD_PROBLEMS = 50;

/** The problem an AgentError describes (its own file, else `file`). */
export function problemOf(error: AgentError, file: string): LoadProblem {
  const { location } = error;
  const problem: LoadProblem = { code: error.code, message: error.message, file: location.file ?? file };
  if (location.line !== undefined) problem.line = location.line;
  if (location.line !== undefined && location.column !== undefined) problem.column = location.column;
  if (location.node !== undefined) problem.node = location.node;
  if (location.field !== undefined) problem.field = location.field;
  const adds = error.details['import'];
  if (typeof adds === 'string') problem.import = adds;
  return problem;
}

/** Longest message `formatProblem` prints. */
const MAX_PRINTED_MESSAGE = 2000;

/**
 * `file:line:column CODE message` (line and column left out when unknown), on one line: control
 * characters (a newline or terminal escape written into a key) are escaped, long messages capped.
 */
export function formatProblem(problem: LoadProblem): string {
  const place = [problem.file, problem.line, problem.line !== undefined ? problem.column : undefined]
    .filter((part) => part !== undefined)
    .join(':');
  const message = cutWithMark(problem.message, MAX_PRINTED_MESSAGE);
  return escapeControl(`${place} ${problem.code} ${message}`);
}

function escapeControl(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** The problems of a load error: `details.errors` when present, else the error itself. */
export function problemsOf(error: AgentError, file: string): LoadProblem[] {
  const listed = error.details['errors'];
  if (Array.isArray(listed) && listed.length > 0 && listed.every(isProblem)) return listed;
  return [problemOf(error, file)];
}

/** Problems in file order (by line, then column; problems without a line keep their place at the end). */
export function inFileOrder(problems: readonly LoadProblem[]): LoadProblem[] {
  const placed = problems.filter((problem) => problem.line !== undefined);
  const unplaced = problems.filter((problem) => problem.line === undefined);
  placed.sort((left, right) => left.line! - right.line! || (left.column ?? 0) - (right.column ?? 0));
  return [...placed, ...unplaced];
}

/**
 * The one error a failed load throws: the first problem (in file order) as the error, every problem
 * (capped) in `details.errors`, and `details.error_count` with the number found (each check stops
 * after 100, so a flood of problems is counted as at least that).
 */
export function loadFailure(problems: readonly LoadProblem[]): AgentError {
  const ordered = inFileOrder(dedupe(problems));
  const first = ordered[0]!;
  const { code, message, import: adds, ...location } = first;
  return new AgentError(code, message, {
    ...location,
    details: {
      ...(adds !== undefined ? { import: adds } : {}),
      errors: ordered.slice(0, MAX_LOAD_PROBLEMS),
      error_count: ordered.length,
    },
  });
}

/** Drops a problem that repeats another one at the same place with the same text. */
function dedupe(problems: readonly LoadProblem[]): LoadProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.line}:${problem.column}:${problem.code}:${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function isProblem(value: unknown): value is LoadProblem {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LoadProblem).code === 'string' &&
    typeof (value as LoadProblem).message === 'string' &&
    typeof (value as LoadProblem).file === 'string'
  );
}
