/**
 * SWI-Prolog's `format/2` and `format/3`, which TEA's Prolog agents use to build explanations
 * (`format(atom(Why), "~w is over ~d", [X, Limit])`). tau-prolog's own format module is a DCG
 * library that writes only to streams; this one covers SWI's directives as agents use them:
 *
 *   ~w ~p ~q ~a   write, print (quoted), writeq, atom      ~d ~D   integer (~Nd: N decimals; ~D: 1,000)
 *   ~e ~f ~g      float (~Nf: N digits, default 6)          ~s      codes, chars or text
 *   ~c            character code (~Nc: N times)             ~r ~R   radix (~8r, ~16R)
 *   ~n ~~         newline (~Nn), tilde                      ~i      skip an argument
 *   ~t ~| ~+      fill and column stops (~N|, ~N+)          ~*c     the count from the arguments
 *
 * Sinks: `atom(A)`, `string(S)` (an atom here: strings read as atoms), `codes(C)`, `chars(C)`, or
 * an output stream. Anything else, an unknown directive, or the wrong number of arguments is
 * SWI's `error(format(Message), _)`. The text is held to the `atomLength` budget before it is
 * built, so `~100000000c` is a budget stop, not an allocation.
 */
import { pl, type TauSession, type TauTerm, type TauThread } from '#prolog-vm';
import { defineHostPredicate } from './host-predicate.js';
import { spend } from './tau-patches.js';
import { listItems, listTerm } from './json-terms.js';

const { Term, Num, State } = pl.type;

class FormatProblem extends Error {}

export function installSwiFormat(session: TauSession): void {
  const run = (thread: TauThread, point: any, atom: TauTerm, sink: TauTerm | undefined, formatTerm: TauTerm, argsTerm: TauTerm) => {
    let text: string;
    try {
      text = formatText(thread, textOf(formatTerm), argumentsOf(argsTerm));
    } catch (error) {
      if (!(error instanceof FormatProblem)) throw error;
      return thread.throw_error(new Term('error', [new Term('format', [new Term(error.message, [])]), new Term('/', [new Term('format', []), new Num(atom.args.length, false)])]));
    }
    const goal = sinkGoal(sink, text);
    if (goal === undefined) return thread.throw_error(pl.error.domain('format_sink', sink, atom.indicator));
    thread.prepend([new State(point.goal.replace(goal), point.substitution, point)]);
  };
  defineHostPredicate(session, 'format/1', (thread, point, atom) => run(thread, point, atom, undefined, atom.args[0], new Term('[]', [])));
  defineHostPredicate(session, 'format/2', (thread, point, atom) => run(thread, point, atom, undefined, atom.args[0], atom.args[1]));
  defineHostPredicate(session, 'format/3', (thread, point, atom) => run(thread, point, atom, atom.args[0], atom.args[1], atom.args[2]));
}

/** The goal that delivers `text`: unify it into an atom(…)/codes(…)/chars(…) sink, else write it. */
function sinkGoal(sink: TauTerm | undefined, text: string): TauTerm | undefined {
  const written = new Term(text, []);
  if (sink === undefined) return new Term('write', [written]);
  if (pl.type.is_term(sink) && sink.args.length === 1) {
    const codes = () => listTerm([...text].map((char) => new Num(char.codePointAt(0)!, false)));
    switch (sink.id) {
      case 'atom':
      case 'string':
        return new Term('=', [sink.args[0], written]);
      case 'codes':
        return new Term('=', [sink.args[0], codes()]);
      case 'chars':
        return new Term('=', [sink.args[0], listTerm([...text].map((char) => new Term(char, [])))]);
      default:
        return undefined;
    }
  }
  // A stream or its alias: write/2 checks it (only the call's output exists in the sandbox).
  return new Term('write', [sink, written]);
}

/** The format text: an atom, a code list or a char list. */
function textOf(term: TauTerm): string {
  if (pl.type.is_atom(term)) return term.id;
  const items = listItems(term);
  if (items === undefined) throw new FormatProblem('format text must be an atom, codes or chars');
  return items.map((item) => (pl.type.is_integer(item) ? String.fromCodePoint(item.value) : pl.type.is_atom(item) ? item.id : '')).join('');
}

/** The arguments: a list, or one non-list argument (as SWI takes it). */
function argumentsOf(term: TauTerm): TauTerm[] {
  return listItems(term) ?? [term];
}

function formatText(thread: TauThread, format: string, args: TauTerm[]): string {
  const write = (term: TauTerm, quoted: boolean) => term.toString({ quoted, numbervars: true, session: thread.session });
  const next = (): TauTerm => {
    if (args.length === 0) throw new FormatProblem('not enough arguments');
    return args.shift();
  };
  let line = '';
  let out = '';
  // Column handling: the text since the last column stop, and where ~t asked for fill.
  let segmentStart = 0;
  let fills: Array<{ at: number; char: string }> = [];
  const emit = (text: string) => {
    spend('atomLength', out.length + line.length + text.length);
    line += text;
  };
  for (let index = 0; index < format.length; index++) {
    const char = format[index]!;
    if (char !== '~') {
      if (char === '\n') {
        out += `${line}\n`;
        line = '';
        segmentStart = 0;
        fills = [];
      } else emit(char);
      continue;
    }
    let numeric: number | undefined;
    let fillChar: string | undefined;
    let cursor = index + 1;
    if (format[cursor] === '*') {
      const count = next();
      if (!pl.type.is_integer(count) || count.value < 0) throw new FormatProblem('~* needs a non-negative integer argument');
      numeric = count.value;
      cursor++;
    } else if (format[cursor] === '`') {
      fillChar = format[cursor + 1];
      cursor += 2;
    } else {
      const digits = /^\d+/.exec(format.slice(cursor))?.[0];
      if (digits !== undefined) {
        numeric = Number(digits);
        cursor += digits.length;
      }
    }
    const directive = format[cursor];
    index = cursor;
    switch (directive) {
      case 'w':
        emit(write(next(), false));
        break;
      case 'p':
      case 'q':
        emit(write(next(), true));
        break;
      case 'a': {
        const value = next();
        if (!pl.type.is_atomic(value)) throw new FormatProblem('~a expects an atomic argument');
        emit(write(value, false));
        break;
      }
      case 'd':
      case 'D': {
        const value = next();
        if (!pl.type.is_integer(value)) throw new FormatProblem(`~${directive} expects an integer argument`);
        emit(integerText(value.value, numeric ?? 0, directive === 'D'));
        break;
      }
      case 'e':
      case 'f':
      case 'g': {
        const value = next();
        if (!pl.type.is_number(value)) throw new FormatProblem(`~${directive} expects a number`);
        const digits = Math.min(numeric ?? 6, 100);
        emit(directive === 'e' ? value.value.toExponential(digits) : directive === 'f' ? value.value.toFixed(digits) : String(Number(value.value.toPrecision(Math.max(1, digits)))));
        break;
      }
      case 's': {
        const value = next();
        emit(pl.type.is_atom(value) ? value.id : textOf(value));
        break;
      }
      case 'c': {
        const value = next();
        if (!pl.type.is_integer(value)) throw new FormatProblem('~c expects a character code');
        const times = numeric ?? 1;
        spend('atomLength', out.length + line.length + times);
        emit(String.fromCodePoint(value.value).repeat(times));
        break;
      }
      case 'r':
      case 'R': {
        const value = next();
        if (!pl.type.is_integer(value) || numeric === undefined || numeric < 2 || numeric > 36) throw new FormatProblem(`~${directive} needs a radix from 2 to 36 and an integer`);
        const digits = value.value.toString(numeric);
        emit(directive === 'R' ? digits.toUpperCase() : digits);
        break;
      }
      case 'n': {
        const times = numeric ?? 1;
        spend('atomLength', out.length + line.length + times);
        out += line + '\n'.repeat(times);
        line = '';
        segmentStart = 0;
        fills = [];
        break;
      }
      case '~':
        emit('~');
        break;
      case 'i':
        next();
        break;
      case 't':
        fills.push({ at: line.length, char: fillChar ?? (numeric !== undefined ? String.fromCodePoint(numeric) : ' ') });
        break;
      case '|':
      case '+': {
        const column = directive === '+' ? segmentStart + (numeric ?? 8) : (numeric ?? line.length);
        const pad = column - line.length;
        if (pad > 0) {
          spend('atomLength', out.length + column);
          // No ~t: pad on the right (text left-aligned); else the fill goes where ~t stood.
          const fill = fills.at(-1) ?? { at: line.length, char: ' ' };
          line = line.slice(0, fill.at) + fill.char.repeat(pad) + line.slice(fill.at);
        }
        segmentStart = Math.max(column, line.length);
        fills = [];
        break;
      }
      default:
        throw new FormatProblem(directive === undefined ? 'truncated format directive' : `unknown directive ~${directive}`);
    }
  }
  if (args.length > 0) throw new FormatProblem('too many arguments');
  return out + line;
}

function integerText(value: number, decimals: number, group: boolean): string {
  const negative = value < 0;
  let digits = Math.abs(value).toString();
  let fraction = '';
  if (decimals > 0) {
    digits = digits.padStart(decimals + 1, '0');
    fraction = `.${digits.slice(-decimals)}`;
    digits = digits.slice(0, -decimals);
  }
  if (group) digits = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${digits}${fraction}`;
}
