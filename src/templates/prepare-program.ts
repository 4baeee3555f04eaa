/**
 * Compile-time work on one template: tokenize and parse once, decide whether it is a lone
 * `{{ expr }}`, reject unknown filters and tests, and note what the interpreter needs per node
 * (which nodes print, which member reads are calls, which are loop sources, literal values).
 */
import { Template, parse, tokenize } from '@huggingface/jinja';
import { AgentError } from '../core/agent-error.js';
import { type RuntimeValue, type TemplateNode, makeFloat, makeInteger, makeString } from './jinja-runtime.js';
import { LIBRARY_FILTERS, TEMPLATE_FILTERS } from './template-filters.js';
import { LIBRARY_TESTS, TEMPLATE_TESTS } from './template-tests.js';
import { ARGUMENT_TESTS } from './argument-tests.js';
import { attachTestArguments, liftTestArguments } from './test-arguments.js';
import { cutText } from '../util/cut-text.js';
import { messageOf } from '../util/message-of.js';

type Program = ReturnType<typeof parse>;

/**
 * A parsed node, as the analysis walks it: its `type` and its other fields read by name (the
 * library does not export its node classes). The analysis knows nodes by identity only: the sets
 * and the map below are keyed by the very objects the interpreter is later handed.
 */
type NodeRecord = { readonly type: string; readonly [field: string]: unknown };

/** A parsed template with what the interpreter needs to know about its nodes. */
export interface PreparedProgram {
  readonly program: Program;
  /** The expression of a lone `{{ expr }}` template (rendered to its native value). */
  readonly lone: TemplateNode | undefined;
  /** Statements whose value is written to the output. */
  readonly outputNodes: ReadonlySet<object>;
  /** Member reads that are immediately called (`x.items()`): only these may reach built-in methods. */
  readonly callees: ReadonlySet<object>;
  /** Loop sources: a missing or null one iterates as empty, a string over its characters. */
  readonly loopSources: ReadonlySet<object>;
  /** Text and literal values made once; runtime values are never changed by the interpreter. */
  readonly literals: ReadonlyMap<object, RuntimeValue>;
}

/** Statement types that produce no text of their own (their children's output is counted). */
const BLOCK_TYPES: ReadonlySet<string> = new Set([
  'If',
  'For',
  'Set',
  'Macro',
  'CallStatement',
  'FilterStatement',
  'Comment',
  'Break',
  'Continue',
]);
const BLOCK_FIELDS = ['body', 'alternate', 'defaultBlock'] as const;
const SNIPPET_LENGTH = 200;

/** Parses `source`; throws `TEMPLATE_ERROR` (no location; the caller adds it) on bad syntax or names. */
export function prepareProgram(source: string): PreparedProgram {
  const trimmed = source.trim();
  const loneTokens = tokenizeOrThrow(trimmed, source);
  const isLone =
    loneTokens.length >= 3 &&
    loneTokens[0]!.type === 'OpenExpression' &&
    loneTokens.at(-1)!.type === 'CloseExpression' &&
    loneTokens.every(
      (token, index) =>
        index === 0 ||
        (token.type !== 'OpenExpression' &&
          token.type !== 'OpenStatement' &&
          token.type !== 'Text' &&
          token.type !== 'Comment'),
    );
  // Keep a trailing newline, as TEA's Jinja environment does (keep_trailing_newline); the lexer drops one.
  const program = parseOrThrow(
    isLone ? loneTokens : tokenizeOrThrow(source.endsWith('\n') ? source + '\n' : source, source),
    source,
  );
  const outputNodes = new Set<object>();
  const callees = new Set<object>();
  const literals = new Map<object, RuntimeValue>();
  const loopSources = new Set<object>();
  if (isNode(program)) visit(program, { outputNodes, callees, literals, loopSources });
  // A lone expression passes a value on; it is not output, so the output cap does not apply to it.
  if (isLone) outputNodes.delete(program.body[0]!);
  return { program, lone: isLone ? program.body[0] : undefined, outputNodes, callees, literals, loopSources };
}

function isNode(value: unknown): value is NodeRecord {
  return typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
}

interface Analysis {
  outputNodes: Set<object>;
  callees: Set<object>;
  literals: Map<object, RuntimeValue>;
  loopSources: Set<object>;
}

function visit(node: NodeRecord, analysis: Analysis): void {
  const { outputNodes, callees, literals, loopSources } = analysis;
  const { value } = node;
  switch (node.type) {
    case 'For': {
      const iterable = node['iterable'];
      if (!isNode(iterable)) break;
      const lhs = iterable['lhs'];
      loopSources.add(iterable.type === 'SelectExpression' && isNode(lhs) ? lhs : iterable);
      break;
    }
    case 'StringLiteral':
      if (typeof value === 'string') literals.set(node, makeString(value));
      break;
    case 'IntegerLiteral':
      if (typeof value === 'number') literals.set(node, makeInteger(value));
      break;
    case 'FloatLiteral':
      if (typeof value === 'number') literals.set(node, makeFloat(value));
      break;
    case 'FilterExpression':
    case 'FilterStatement': {
      const filter = node['filter'];
      if (isNode(filter)) checkFilter(filter);
      break;
    }
    case 'TestExpression': {
      const test = node['test'];
      checkTest(isNode(test) && typeof test['value'] === 'string' ? test['value'] : '');
      break;
    }
    case 'CallExpression': {
      const callee = node['callee'];
      if (isNode(callee) && callee.type === 'MemberExpression') callees.add(callee);
      break;
    }
  }
  for (const field of BLOCK_FIELDS) {
    const children = node[field];
    if (!Array.isArray(children)) continue;
    for (const child of children) {
      if (isNode(child) && !BLOCK_TYPES.has(child.type)) outputNodes.add(child);
    }
  }
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) visit(item, analysis);
    } else if (value instanceof Map) {
      for (const [key, item] of value) {
        if (isNode(key)) visit(key, analysis);
        if (isNode(item)) visit(item, analysis);
      }
    } else if (isNode(value)) {
      visit(value, analysis);
    }
  }
}

function checkFilter(filter: NodeRecord): void {
  const called = filter['callee'];
  const callee = filter.type === 'CallExpression' && isNode(called) ? called : filter;
  const name = callee.type === 'Identifier' ? String(callee['value']) : '';
  if (TEMPLATE_FILTERS.has(name) || LIBRARY_FILTERS.has(name)) return;
  const known = [...TEMPLATE_FILTERS.keys(), ...LIBRARY_FILTERS];
  throw new AgentError('TEMPLATE_ERROR', `unknown filter '${name}'${suggest(name, known)}`, {
    details: { filter: name },
  });
}

function checkTest(name: string): void {
  if (TEMPLATE_TESTS.has(name) || LIBRARY_TESTS.has(name) || ARGUMENT_TESTS.has(name)) return;
  const known = [...TEMPLATE_TESTS.keys(), ...LIBRARY_TESTS, ...ARGUMENT_TESTS.keys()];
  throw new AgentError('TEMPLATE_ERROR', `unknown test '${name}'${suggest(name, known)}`, { details: { test: name } });
}

function tokenizeOrThrow(text: string, source: string): ReturnType<typeof tokenize> {
  try {
    return tokenize(text);
  } catch (error) {
    throw syntaxError(error, source);
  }
}

function parseOrThrow(tokens: ReturnType<typeof tokenize>, source: string): Program {
  try {
    const lifted = liftTestArguments(tokens);
    const program = parse(lifted.tokens);
    attachTestArguments(program, lifted);
    return program;
  } catch (error) {
    if (AgentError.isInstance(error)) throw error;
    throw syntaxError(error, source);
  }
}

function syntaxError(error: unknown, source: string): AgentError {
  const reason = messageOf(error);
  const expression = findBrokenExpression(source) ?? snippet(source);
  return new AgentError('TEMPLATE_ERROR', `template syntax error: ${reason} in ${expression}`, {
    details: { expression, reason },
  });
}

/** The first `{{ ... }}` that does not parse on its own, to point the author at it. */
function findBrokenExpression(source: string): string | undefined {
  for (const match of source.matchAll(/\{\{[\s\S]*?\}\}/g)) {
    try {
      parse(liftTestArguments(tokenize(match[0])).tokens);
    } catch {
      return snippet(match[0]);
    }
  }
  return undefined;
}

/** A short form of a text for messages. */
export function snippet(text: string): string {
  return cutText(text, SNIPPET_LENGTH);
}

/** The source form of a node, e.g. `{{ state.x | upper }}`, for error messages. */
export function describeNode(node: TemplateNode): string | undefined {
  try {
    const formatted = Template.prototype.format.call({
      parsed: { type: 'Program', body: [node] },
    } as unknown as Template);
    return snippet(
      formatted
        .replace(/^\{\{- /, '{{ ')
        .replace(/ -\}\}$/, ' }}')
        .replace(/^\{%- /, '{% ')
        .replace(/ -%\}$/, ' %}'),
    );
  } catch {
    return undefined;
  }
}

/** "; did you mean 'x'?" for the nearest known name within edit distance 2, else a short list. */
function suggest(name: string, known: string[]): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined ? `; did you mean '${best}'?` : `; known: ${known.sort().join(', ')}`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
