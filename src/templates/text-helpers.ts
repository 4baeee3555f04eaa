/** Python/Jinja text and number semantics used by the filters (`int`, `float`, `replace`, ...). */
import { AgentError } from '../core/agent-error.js';
import { quoteText } from '../util/cut-text.js';

const DIGITS_BY_BASE: Readonly<Record<number, RegExp>> = {
  2: /^[+-]?(0b)?[01]+$/i,
  8: /^[+-]?(0o)?[0-7]+$/i,
  10: /^[+-]?\d+$/,
  16: /^[+-]?(0x)?[0-9a-f]+$/i,
};

// Unambiguous (`\d+\.?\d*` backtracked quadratically: 20,000 digits and an 'x' took 1.5 s).
const FLOAT_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** Jinja's `int`: integer text in `base`, else float text truncated; undefined when neither. */
export function parseIntegerText(text: string, base: number): number | undefined {
  const trimmed = text.trim().replace(/_/g, '');
  const pattern = DIGITS_BY_BASE[base];
  if (pattern === undefined) throw new AgentError('TEMPLATE_ERROR', `int: base must be 2, 8, 10 or 16, got ${base}`);
  if (pattern.test(trimmed)) {
    const negative = trimmed.startsWith('-');
    const digits = trimmed.replace(/^[+-]/, '').replace(/^0[box]/i, '');
    const value = parseInt(digits, base);
    return negative ? -value : value;
  }
  const asFloat = base === 10 ? parseFloatText(trimmed) : undefined;
  return asFloat === undefined || !Number.isFinite(asFloat) ? undefined : Math.trunc(asFloat);
}

/** Python `float()` on text: decimal or exponent notation, `inf`, `nan`; undefined otherwise. */
export function parseFloatText(text: string): number | undefined {
  const trimmed = text.trim().replace(/_/g, '');
  if (FLOAT_TEXT.test(trimmed)) return Number(trimmed);
  const word = trimmed.toLowerCase().replace(/^\+/, '');
  if (word === 'inf' || word === 'infinity') return Infinity;
  if (word === '-inf' || word === '-infinity') return -Infinity;
  if (word === 'nan' || word === '-nan') return NaN;
  return undefined;
}

/** Python `str.replace` (an empty `old` inserts between characters); the result size is checked first. */
export function pythonReplace(text: string, old: string, replacement: string, count: number, maxChars: number): string {
  const limit = count < 0 ? Infinity : count;
  if (old === '') {
    const characters = Array.from(text);
    const inserts = Math.min(characters.length + 1, limit);
    if (text.length + inserts * replacement.length > maxChars) throw sizeError(maxChars);
    let result = '';
    for (let index = 0; index <= characters.length; index++) {
      if (index < inserts) result += replacement;
      if (index < characters.length) result += characters[index];
    }
    return result;
  }
  const parts = text.split(old);
  const replacements = Math.min(parts.length - 1, limit);
  if (text.length + replacements * (replacement.length - old.length) > maxChars) throw sizeError(maxChars);
  if (replacements === parts.length - 1) return parts.join(replacement);
  return parts.slice(0, replacements + 1).join(replacement) + old + parts.slice(replacements + 1).join(old);
}

function sizeError(maxChars: number): AgentError {
  return new AgentError('TEMPLATE_LIMIT', `replace: the result would exceed the limit of ${maxChars} characters`);
}

/** Jinja's `round`: `common` rounds half to even (Python's `round`), or `ceil` / `floor`. */
export function roundNumber(value: number, precision: number, method: 'common' | 'ceil' | 'floor'): number {
  const factor = 10 ** precision;
  const scaled = value * factor;
  if (method === 'ceil') return Math.ceil(scaled) / factor;
  if (method === 'floor') return Math.floor(scaled) / factor;
  const floor = Math.floor(scaled);
  const difference = scaled - floor;
  const rounded = difference > 0.5 || (difference === 0.5 && floor % 2 !== 0) ? floor + 1 : floor;
  return rounded / factor;
}

/** Jinja's `truncate(length, killwords, end, leeway)`. */
export function truncateText(text: string, length: number, killWords: boolean, end: string, leeway: number): string {
  if (length < end.length) throw new AgentError('TEMPLATE_ERROR', `truncate: length must be at least ${end.length}`);
  if (text.length <= length + leeway) return text;
  const cut = text.slice(0, length - end.length);
  if (killWords) return cut + end;
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace === -1 ? cut : cut.slice(0, lastSpace)) + end;
}

/** A value as `%s`/`%d`/`%f` see it: its printed text, or its number. */
export interface FormatArgument {
  text: string;
  number: number | undefined;
}

/** Largest precision of a number conversion: JS prints at most 100 digits after the point. */
const MAX_NUMBER_PRECISION = 100;

/**
 * Python's `%` formatting for the common conversions: `%s`, `%r`, `%d`/`%i`, `%f`/`%F`, `%e`, `%x`,
 * `%%`, with flags `-`, `0`, `+`, space, width and precision (`%-10s`, `%05.2f`). The result is
 * kept within `maxChars`: a width past it, or a result growing past it, is `TEMPLATE_LIMIT`
 * before the text is built; a number precision past 100 is a `TEMPLATE_ERROR`.
 */
export function percentFormat(template: string, args: readonly FormatArgument[], maxChars: number): string {
  let next = 0;
  let produced = template.length;
  const result = template.replace(
    /%([-0+ ]*)([1-9]\d*)?(?:\.(\d+))?([sridfFeExX%])/g,
    (match: string, flags: string, width?: string, precision?: string, conversion?: string) => {
      if (conversion === '%') return '%';
      const argument = args[next++];
      if (argument === undefined)
        throw new AgentError('TEMPLATE_ERROR', 'format: not enough arguments for the format string');
      const size = width === undefined ? 0 : Number(width);
      if (size > maxChars) throw formatLimit(`the width in '${match}'`, maxChars);
      const text = pad(convert(match, argument, flags, precision, conversion!), size, flags, conversion!);
      produced += text.length;
      if (produced > maxChars) throw formatLimit('the formatted text', maxChars);
      return text;
    },
  );
  if (next < args.length) throw new AgentError('TEMPLATE_ERROR', 'format: not all arguments converted');
  return result;
}

/** One conversion's text before padding. */
function convert(
  match: string,
  argument: FormatArgument,
  flags: string,
  precision: string | undefined,
  conversion: string,
): string {
  if (conversion === 's' || conversion === 'r')
    return precision === undefined ? argument.text : argument.text.slice(0, Number(precision));
  const number = argument.number;
  if (number === undefined)
    throw new AgentError(
      'TEMPLATE_ERROR',
      `format: %${conversion} needs a number, got ${quoteText(argument.text, 50)}`,
    );
  const digits = precision === undefined ? 6 : Number(precision);
  if (digits > MAX_NUMBER_PRECISION) {
    throw new AgentError(
      'TEMPLATE_ERROR',
      `format: precision ${precision} in '${match}' is too large (at most ${MAX_NUMBER_PRECISION} digits)`,
      {
        details: { format: match },
      },
    );
  }
  let text: string;
  if (conversion === 'd' || conversion === 'i') text = String(Math.trunc(number));
  else if (conversion === 'x' || conversion === 'X') text = Math.trunc(number).toString(16);
  else if (conversion === 'e' || conversion === 'E')
    text = Number.isFinite(number) ? number.toExponential(digits).replace(/e([+-])(\d)$/, 'e$10$2') : String(number);
  else text = fixed(number, digits);
  if (conversion === 'X' || conversion === 'E' || conversion === 'F') text = text.toUpperCase();
  if (number >= 0 && flags.includes('+')) text = '+' + text;
  else if (number >= 0 && flags.includes(' ')) text = ' ' + text;
  return text;
}

function pad(text: string, size: number, flags: string, conversion: string): string {
  if (text.length >= size) return text;
  if (flags.includes('-')) return text.padEnd(size);
  if (flags.includes('0') && conversion !== 's' && conversion !== 'r') {
    const sign = /^[+\- ]/.test(text) ? text[0]! : '';
    return sign + text.slice(sign.length).padStart(size - sign.length, '0');
  }
  return text.padStart(size);
}

function formatLimit(what: string, maxChars: number): AgentError {
  return new AgentError('TEMPLATE_LIMIT', `format: ${what} would exceed the limit of ${maxChars} characters`, {
    details: { limit: 'maxOutputChars', value: maxChars },
  });
}

/** `%.Nf` as Python prints it: exact binary ties round half to even (`'%.1f' % 2.25` is `2.2`). */
function fixed(number: number, digits: number): string {
  return digits <= 15 && Number.isFinite(number)
    ? roundNumber(number, digits, 'common').toFixed(digits)
    : number.toFixed(digits);
}
