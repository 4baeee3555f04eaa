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
import { spend, spendText } from './tau-patches.js';
import { listItems, listTerm } from './json-terms.js';

const { Term, Num, State } = pl.type;

class FormatProblem extends Error {}

export function installSwiFormat(session: TauSession): void {
  const run = (
    thread: TauThread,
    point: any,
    atom: TauTerm,
    sink: TauTerm | undefined,
    formatTerm: TauTerm,
    argsTerm: TauTerm,
  ) => {
    let text: string;
    try {
      text = formatText(thread, termText(formatTerm), argumentsOf(argsTerm));
    } catch (error) {
      if (!(error instanceof FormatProblem)) throw error;
      return thread.throw_error(
        new Term('error', [
          new Term('format', [new Term(error.message, [])]),
          new Term('/', [new Term('format', []), new Num(atom.args.length, false)]),
        ]),
      );
    }
    const goal = sinkGoal(sink, text);
    if (goal === undefined) return thread.throw_error(pl.error.domain('format_sink', sink, atom.indicator));
    thread.prepend([new State(point.goal.replace(goal), point.substitution, point)]);
  };
  defineHostPredicate(session, 'format/1', (thread, point, atom) =>
    run(thread, point, atom, undefined, atom.args[0], new Term('[]', [])),
  );
  defineHostPredicate(session, 'format/2', (thread, point, atom) =>
    run(thread, point, atom, undefined, atom.args[0], atom.args[1]),
  );
  defineHostPredicate(session, 'format/3', (thread, point, atom) =>
    run(thread, point, atom, atom.args[0], atom.args[1], atom.args[2]),
  );
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
function termText(term: TauTerm): string {
  if (pl.type.is_atom(term)) return term.id;
  const items = listItems(term);
  if (items === undefined) throw new FormatProblem('format text must be an atom, codes or chars');
  return items
    .map((item) => (pl.type.is_integer(item) ? String.fromCodePoint(item.value) : pl.type.is_atom(item) ? item.id : ''))
    .join('');
}

/** The arguments: a list, or one non-list argument (as SWI takes it). */
function argumentsOf(term: TauTerm): TauTerm[] {
  return listItems(term) ?? [term];
}

/** The text being formatted: finished lines, the current one, and its column stops (~t ~| ~+). */
class FormatWriter {
  private out = '';
  private line = '';
  private segmentStart = 0;
  private fills: Array<{ at: number; char: string }> = [];

  /** Adds text to the line (held to the atomLength budget and charged to the work meter before it is built). */
  text(text: string): void {
    this.reserve(text.length);
    this.line += text;
  }

  newlines(times: number): void {
    this.reserve(times);
    this.out += this.line + '\n'.repeat(times);
    this.line = '';
    this.segmentStart = 0;
    this.fills = [];
  }

  /** ~t: where the next column stop puts its padding. */
  fill(char: string): void {
    this.fills.push({ at: this.line.length, char });
  }

  /** ~N| (an absolute column, default: here) or ~N+ (N past the last stop, default 8). */
  columnStop(column: number): void {
    const pad = column - this.line.length;
    if (pad > 0) {
      this.reserve(pad);
      spendText(this.line.length); // the line is copied around the padding
      // No ~t: pad on the right (text left-aligned); else the fill goes where ~t stood.
      const fill = this.fills.at(-1) ?? { at: this.line.length, char: ' ' };
      this.line = this.line.slice(0, fill.at) + fill.char.repeat(pad) + this.line.slice(fill.at);
    }
    this.segmentStart = Math.max(column, this.line.length);
    this.fills = [];
  }

  relativeStop(width: number | undefined): void {
    this.columnStop(this.segmentStart + (width ?? 8));
  }

  result(): string {
    return this.out + this.line;
  }

  private reserve(characters: number): void {
    spendText(characters);
    spend('atomLength', this.out.length + this.line.length + characters);
  }
}

/** One `~` directive: its letter, its numeric argument (`~2f`, `~*c`), its fill character (`~`-t`). */
interface Directive {
  letter: string | undefined;
  numeric: number | undefined;
  fillChar: string | undefined;
  /** Index of the directive letter in the format text. */
  end: number;
}

function readDirective(format: string, tilde: number, next: () => TauTerm): Directive {
  let cursor = tilde + 1;
  let numeric: number | undefined;
  let fillChar: string | undefined;
  if (format[cursor] === '*') {
    const count = next();
    if (!pl.type.is_integer(count) || count.value < 0)
      throw new FormatProblem('~* needs a non-negative integer argument');
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
  return { letter: format[cursor], numeric, fillChar, end: cursor };
}

/** The text of a directive that writes an argument (or `~`), or undefined for the others. */
function argumentText(
  directive: Directive,
  next: () => TauTerm,
  write: (term: TauTerm, quoted: boolean) => string,
): string | undefined {
  const { letter, numeric } = directive;
  switch (letter) {
    case 'w':
      return write(next(), false);
    case 'p':
    case 'q':
      return write(next(), true);
    case 'a': {
      const value = next();
      if (!pl.type.is_atomic(value)) throw new FormatProblem('~a expects an atomic argument');
      return write(value, false);
    }
    case 'd':
    case 'D': {
      const value = next();
      if (!pl.type.is_integer(value)) throw new FormatProblem(`~${letter} expects an integer argument`);
      return integerText(value.value, numeric ?? 0, letter === 'D');
    }
    case 'e':
    case 'f':
    case 'g': {
      const value = next();
      if (!pl.type.is_number(value)) throw new FormatProblem(`~${letter} expects a number`);
      const digits = Math.min(numeric ?? 6, 100);
      if (letter === 'e') return value.value.toExponential(digits);
      return letter === 'f'
        ? value.value.toFixed(digits)
        : String(Number(value.value.toPrecision(Math.max(1, digits))));
    }
    case 's': {
      const value = next();
      return pl.type.is_atom(value) ? value.id : termText(value);
    }
    case 'c': {
      const value = next();
      if (!pl.type.is_integer(value)) throw new FormatProblem('~c expects a character code');
      // Held to the budget before the repeat is built.
      spend('atomLength', numeric ?? 1);
      return String.fromCodePoint(value.value).repeat(numeric ?? 1);
    }
    case 'r':
    case 'R': {
      const value = next();
      if (!pl.type.is_integer(value) || numeric === undefined || numeric < 2 || numeric > 36)
        throw new FormatProblem(`~${letter} needs a radix from 2 to 36 and an integer`);
      const digits = value.value.toString(numeric);
      return letter === 'R' ? digits.toUpperCase() : digits;
    }
    case '~':
      return '~';
    default:
      return undefined;
  }
}

function formatText(thread: TauThread, format: string, args: TauTerm[]): string {
  const write = (term: TauTerm, quoted: boolean) =>
    term.toString({ quoted, numbervars: true, session: thread.session });
  const next = (): TauTerm => {
    if (args.length === 0) throw new FormatProblem('not enough arguments');
    return args.shift();
  };
  const writer = new FormatWriter();
  for (let index = 0; index < format.length; index++) {
    const char = format[index]!;
    if (char !== '~') {
      if (char === '\n') writer.newlines(1);
      else writer.text(char);
      continue;
    }
    const directive = readDirective(format, index, next);
    index = directive.end;
    const text = argumentText(directive, next, write);
    if (text !== undefined) {
      writer.text(text);
      continue;
    }
    switch (directive.letter) {
      case 'n':
        writer.newlines(directive.numeric ?? 1);
        break;
      case 'i':
        next();
        break;
      case 't':
        writer.fill(
          directive.fillChar ?? (directive.numeric !== undefined ? String.fromCodePoint(directive.numeric) : ' '),
        );
        break;
      case '|':
        writer.columnStop(directive.numeric ?? Number.NEGATIVE_INFINITY);
        break;
      case '+':
        writer.relativeStop(directive.numeric);
        break;
      default:
        throw new FormatProblem(
          directive.letter === undefined ? 'truncated format directive' : `unknown directive ~${directive.letter}`,
        );
    }
  }
  if (args.length > 0) throw new FormatProblem('too many arguments');
  return writer.result();
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
