/**
 * Turns a load error into the list of problems the editor marks. The loader throws ONE error
 * whose `details.errors` lists every problem of the file (shared contract: `{code, message, file,
 * line?, column?, node?, field?}`, message text only); older loaders list
 * schema problems as `{path, message}` (a JSON pointer), and some errors carry no list at all.
 * Everything here is read defensively: what is not the expected shape is skipped, and an error
 * without a usable list gives one problem at the error's own place.
 */
import type { AgentProblem } from './protocol.js';
import { isPlainObject } from '../src/util/plain-object.js';

/** The file name the demo loads its agent under; problems in other files have no place here. */
export const AGENT_FILE = 'agent.yaml';
/** The contract's cap on listed problems. */
export const MAX_PROBLEMS = 50;

/** Finds the line and column of a path (keys and indexes) in the agent text, when it exists. */
export type PathLocator = (path: (string | number)[]) => { line: number; column: number } | undefined;

/** The problems of a load error, in file order as the loader gave them, at most MAX_PROBLEMS. */
export function problemsFromLoadError(error: unknown, locate?: PathLocator): AgentProblem[] {
  const top = topProblem(error);
  const listed = listedErrors(error)
    .map((entry) => entryProblem(entry, top.code, locate))
    .filter((problem): problem is AgentProblem => problem !== undefined);
  const problems = listed.length > 0 ? listed : [top];
  // A list in the old schema shape has no places for some entries; the first one is the error itself.
  const first = problems[0]!;
  if (listed.length > 0 && first.line === undefined && top.line !== undefined) {
    first.line = top.line;
    if (top.column !== undefined) first.column = top.column;
  }
  return unique(problems).slice(0, MAX_PROBLEMS);
}

/** The thrown error as one problem: its message (text only) at its location's place. */
function topProblem(error: unknown): AgentProblem {
  const value = isPlainObject(error) ? error : {};
  const location = isPlainObject(value.location) ? value.location : {};
  const problem: AgentProblem = {
    code: text(value.code) ?? 'INVALID_AGENT',
    message: text(value.message) ?? String(error),
  };
  const file = text(location.file);
  if (file === undefined || file === AGENT_FILE) copyPlace(problem, location);
  return problem;
}

function listedErrors(error: unknown): unknown[] {
  if (!isPlainObject(error) || !isPlainObject(error.details)) return [];
  const list = error.details.errors;
  return Array.isArray(list) ? list.slice(0, MAX_PROBLEMS * 4) : [];
}

function entryProblem(entry: unknown, fallbackCode: string, locate: PathLocator | undefined): AgentProblem | undefined {
  if (!isPlainObject(entry)) return undefined;
  const message = text(entry.message);
  if (message === undefined || message === '') return undefined;
  const problem: AgentProblem = { code: text(entry.code) ?? fallbackCode, message };
  const file = text(entry.file);
  if (file !== undefined && file !== AGENT_FILE) {
    // Another file (a schema file, say): listed, but the editor has no place for it.
    problem.message = `${file}: ${message}`;
  } else {
    copyPlace(problem, entry);
    const path = pathOf(entry.path) ?? pathOf(entry.instance_path);
    // The older schema list names the place only by path: show it as the field.
    if (problem.field === undefined && path !== undefined && path.length > 0) problem.field = path.join('.');
    if (problem.line === undefined && locate !== undefined) {
      const place = path === undefined ? undefined : locate(path);
      if (place !== undefined) {
        problem.line = place.line;
        problem.column = place.column;
      }
    }
  }
  return problem;
}

/** Copies line, column, node and field when they have the right types. */
function copyPlace(problem: AgentProblem, source: Record<string, unknown>): void {
  const line = positive(source.line);
  const column = positive(source.column);
  if (line !== undefined) {
    problem.line = line;
    if (column !== undefined) problem.column = column;
  }
  const node = text(source.node);
  const field = text(source.field);
  if (node !== undefined) problem.node = node;
  if (field !== undefined) problem.field = field;
}

/** `#/nodes/0/name` or `/nodes/0/name` or `['nodes', 0, 'name']` → path parts. */
function pathOf(value: unknown): (string | number)[] | undefined {
  if (Array.isArray(value))
    return value.every((part) => typeof part === 'string' || typeof part === 'number')
      ? (value as (string | number)[])
      : undefined;
  if (typeof value !== 'string') return undefined;
  return value
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part.replaceAll('~1', '/').replaceAll('~0', '~')));
}

function unique(problems: AgentProblem[]): AgentProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = JSON.stringify([problem.code, problem.message, problem.line, problem.column]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
