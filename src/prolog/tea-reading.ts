/**
 * TEA's reading of Prolog text, term by term (its `tea_load_code/1`, tea_prolog_predicates.pl):
 * `:- Goal` runs Goal, `Head :- Body` is asserted, a compound term whose name is not one of TEA's
 * action predicates is asserted as a fact, anything else is a query. Shared by a node's chunk
 * (compile-prolog.ts) and by `tea_load_code/1` inside a call (facts a model wrote, tea-load-code.ts).
 */
import { pl, type TauTerm, type TauThread } from '#prolog-vm';
import { termText } from './term-text.js';

const { Term } = pl.type;

/** TEA's action predicates: a term with one of these names is called, never asserted as a fact. */
const ACTION_PREDICATES = new Set([
  'return',
  'state',
  ',',
  ';',
  '->',
  '*->',
  '>',
  '<',
  '>=',
  '=<',
  '=:=',
  '=\\=',
  '=',
  '\\=',
  '==',
  '\\==',
  '@<',
  '@>',
  '@=<',
  '@>=',
  '\\+',
  'is',
  'findall',
  'bagof',
  'setof',
  'member',
  'memberchk',
  'append',
  'length',
  'nth0',
  'nth1',
  'msort',
  'sort',
  'reverse',
  'last',
  'sumlist',
  'max_list',
  'min_list',
  'forall',
  'aggregate_all',
  'aggregate',
  'call',
  'once',
  'succ',
  'plus',
  'abs',
  'sign',
  'max',
  'min',
  'write',
  'writeln',
  'print',
  'format',
  'atom',
  'number',
  'integer',
  'float',
  'compound',
  'is_list',
  'ground',
  'atom_string',
  'atom_codes',
  'atom_chars',
  // Host predicates of every session (prolog-session.ts): called, never asserted over.
  'tea_load_code',
  'dynamic',
  'discontiguous',
  'multifile',
  'term_to_atom',
  'term_string',
  'string_concat',
  'string_length',
  'string_chars',
  'string_codes',
  'string_lower',
  'string_upper',
  'number_string',
  'is_dict',
  'get_dict',
  'dict_pairs',
]);

/** A term of the text, the line it starts on (1-based) and the index of the token after its `.`. */
export interface ChunkTerm {
  term: TauTerm;
  line: number;
  next: number;
}

/** A syntax error in the text: what was expected, and the line (1-based) when known. */
export class PrologSyntax extends Error {
  constructor(
    message: string,
    readonly line: number | undefined,
  ) {
    super(message);
  }
}

/** Every term of `code`, read with `thread`'s operators and flags; throws PrologSyntax. */
export function* readChunkTerms(code: string, thread: TauThread): Generator<ChunkTerm> {
  const tokens = chunkTokens(code, thread);
  for (let index = 0; index < tokens.length; ) {
    const chunkTerm = readTermAt(tokens, index, thread);
    yield chunkTerm;
    index = chunkTerm.next;
  }
}

/** The tokens of `code` (a final `.` added when missing); throws PrologSyntax. */
export function chunkTokens(code: string, thread: TauThread): unknown[] {
  const text = /\.\s*(%[^\n]*)?\s*$/.test(code) ? code : `${code.trimEnd()}\n.`;
  const tokenizer = new pl.parser.tokenizer(thread);
  tokenizer.new_text(text);
  const tokens = tokenizer.get_tokens(0);
  if (tokens === null) throw new PrologSyntax('the text cannot be split into Prolog tokens', undefined);
  return tokens;
}

/** The term starting at token `index`, read with `thread`'s operators and flags; throws PrologSyntax. */
export function readTermAt(tokens: any[], index: number, thread: TauThread): ChunkTerm {
  const line = tokens[index].line + 1;
  const expression = pl.parser.expression(thread, tokens, index, 1200, false);
  if (expression.type === 0) throw syntaxFrom(expression.value, line);
  const end = tokens[expression.len];
  if (end === undefined || end.name !== 'atom' || end.raw !== '.')
    throw new PrologSyntax('operator or `.` expected after a term', end === undefined ? line : end.line + 1);
  return { term: expression.value, line, next: expression.len + 1 };
}

/**
 * What reading depends on in a session: its operators, the `double_quotes` and `char_conversion`
 * flags and the conversion table. Equal texts: a term reads the same in both sessions.
 */
export function readingState(session: any): string {
  return `${JSON.stringify(session.__operators)}|${session.flag.double_quotes.id}|${session.flag.char_conversion.id}|${JSON.stringify(session.__char_conversion)}`;
}

function syntaxFrom(error: TauTerm, fallbackLine: number): PrologSyntax {
  let line = fallbackLine;
  let found = '';
  for (let info = error.args?.[1]; pl.type.is_term(info) && info.indicator === './2'; info = info.args[1]) {
    const item = info.args[0];
    if (item.indicator === 'line/1' && pl.type.is_integer(item.args[0])) line = item.args[0].value;
    if (item.indicator === 'found/1') found = ` near ${termText(item.args[0])}`;
  }
  const expected = error.args?.[0]?.args?.[0];
  return new PrologSyntax(`${expected !== undefined ? termText(expected) : 'syntax error'}${found}`, line);
}

/**
 * TEA's reading of a term: the goal that runs it. One widening: a term naming a built-in
 * (`catch(G, E, R).`, `maplist(…).`) is called, where TEA would try to assert it and fail with a
 * permission error, so no agent that runs in TEA reads differently here.
 */
export function goalOf(term: TauTerm): TauTerm {
  if (term.indicator === ':-/1') return term.args[0];
  if (term.indicator === ':-/2') return new Term('assertz', [term]);
  if (pl.type.is_term(term) && term.args.length > 0 && !ACTION_PREDICATES.has(term.id) && !isBuiltin(term.indicator))
    return new Term('assertz', [term]);
  return term;
}

function isBuiltin(indicator: string): boolean {
  return Object.hasOwn(pl.modules.system!.rules, indicator) || Object.hasOwn(pl.modules.lists!.rules, indicator);
}
