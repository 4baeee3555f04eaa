/**
 * Lifts the arguments of Jinja tests out of a token list, so the library's parser (which knows only
 * `x is name`) can parse the rest: `x is divisibleby(3)` and `x is divisibleby 3` become
 * `x is divisibleby` with the test name marked, and the argument is parsed on its own. After
 * parsing, `attachTestArguments` puts each argument on its TestExpression node as `argument`.
 * Only tests that take an argument (argument-tests.ts) are rewritten; Jinja's grammar decides the
 * extent of a bare argument: one primary (name, number, text, bracketed group) and its postfixes
 * (`.name`, `[key]`, `(call)`), never `and`, `or` or `else`.
 */
import { parse, tokenize } from '@huggingface/jinja';
import { AgentError } from '../core/agent-error.js';
import { ARGUMENT_TESTS } from './argument-tests.js';
import type { TemplateNode } from './jinja-runtime.js';

type Token = ReturnType<typeof tokenize>[number];

/** A marked test name cannot be written in a template: `#` never appears in an identifier. */
const MARK = '#';
const NOT_AN_ARGUMENT: ReadonlySet<string> = new Set(['and', 'or', 'else', 'if', 'not', 'is', 'in', 'recursive']);
const OPENERS: Readonly<Record<string, string>> = {
  OpenParen: 'CloseParen',
  OpenSquareBracket: 'CloseSquareBracket',
  OpenCurlyBracket: 'CloseCurlyBracket',
};

export interface LiftedTests {
  tokens: Token[];
  /** The argument tokens of each marked test, by its index. */
  arguments: Token[][];
}

export function liftTestArguments(tokens: readonly Token[]): LiftedTests {
  const out: Token[] = [];
  const lifted: Token[][] = [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    out.push(token);
    if (token.type !== 'Identifier' || token.value !== 'is') continue;
    let nameIndex = index + 1;
    if (
      tokens[nameIndex]?.type === 'Identifier' &&
      tokens[nameIndex]!.value === 'not' &&
      tokens[nameIndex + 1]?.type === 'Identifier'
    ) {
      out.push(tokens[nameIndex]!);
      nameIndex++;
    }
    const name = tokens[nameIndex];
    if (name === undefined || name.type !== 'Identifier' || !ARGUMENT_TESTS.has(name.value)) {
      index = nameIndex - 1;
      continue;
    }
    const start = nameIndex + 1;
    const end = tokens[start]?.type === 'OpenParen' ? groupEnd(tokens, start) : bareArgumentEnd(tokens, start);
    if (end === start) {
      throw new AgentError('TEMPLATE_ERROR', `test '${name.value}' needs an argument, e.g. \`x is ${name.value}(y)\``, {
        details: { test: name.value },
      });
    }
    const argument = tokens[start]?.type === 'OpenParen' ? tokens.slice(start + 1, end - 1) : tokens.slice(start, end);
    out.push({ ...name, value: `${name.value}${MARK}${lifted.length}` } as Token);
    lifted.push(argument);
    index = end - 1;
  }
  return { tokens: out, arguments: lifted };
}

/** The index after the bracket that closes the one at `start`. */
function groupEnd(tokens: readonly Token[], start: number): number {
  const stack: string[] = [];
  for (let index = start; index < tokens.length; index++) {
    const type = tokens[index]!.type;
    if (OPENERS[type] !== undefined) stack.push(OPENERS[type]!);
    else if (type === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return index + 1;
    }
  }
  throw new AgentError('TEMPLATE_ERROR', 'template syntax error: an unclosed bracket after a test');
}

/** The index after a bare argument (a primary and its postfixes), or `start` when there is none. */
function bareArgumentEnd(tokens: readonly Token[], start: number): number {
  const first = tokens[start];
  if (first === undefined) return start;
  let end: number;
  if (first.type === 'Identifier') end = NOT_AN_ARGUMENT.has(first.value) ? start : start + 1;
  else if (first.type === 'NumericLiteral' || first.type === 'StringLiteral') end = start + 1;
  else if (OPENERS[first.type] !== undefined) end = groupEnd(tokens, start);
  else return start;
  if (end === start) return start;
  for (;;) {
    const next = tokens[end];
    if (next?.type === 'Dot' && tokens[end + 1]?.type === 'Identifier') end += 2;
    else if (next?.type === 'OpenSquareBracket' || next?.type === 'OpenParen') end = groupEnd(tokens, end);
    else return end;
  }
}

/** Parses each lifted argument and puts it on its TestExpression (`test.value` unmarked again). */
export function attachTestArguments(program: unknown, lifted: LiftedTests): void {
  if (lifted.arguments.length === 0) return;
  const parsed = lifted.arguments.map((argument) => parseArgument(argument));
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node instanceof Map) {
      for (const [key, item] of node) {
        visit(key);
        visit(item);
      }
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const record = node as Record<string, unknown> & { type?: string; test?: { value: string } };
    if (record.type === 'TestExpression' && record.test !== undefined) {
      const mark = record.test.value.indexOf(MARK);
      if (mark !== -1) {
        record.argument = parsed[Number(record.test.value.slice(mark + 1))];
        record.test.value = record.test.value.slice(0, mark);
      }
    }
    for (const value of Object.values(record)) if (typeof value === 'object' && value !== null) visit(value);
  };
  visit(program);
}

/** One argument parsed as the argument of a call: `{{ f(<tokens>) }}`. */
function parseArgument(argument: Token[]): TemplateNode {
  const shell = tokenize('{{ f() }}');
  const tokens = [shell[0]!, shell[1]!, shell[2]!, ...argument, shell[3]!, shell[4]!];
  const call = parse(tokens).body[0];
  const args: TemplateNode[] = call !== undefined && 'args' in call && Array.isArray(call.args) ? call.args : [];
  if (args.length !== 1) throw new AgentError('TEMPLATE_ERROR', `a test takes one argument, got ${args.length}`);
  return args[0]!;
}
