/**
 * Light repair of almost-JSON written by small models, and the search for balanced `{…}` objects
 * in prose. Both are linear scanners that never evaluate anything.
 *
 * Repairs: single-quoted strings, Python `True`/`False`/`None`, unquoted keys, trailing commas,
 * raw newlines and tabs inside strings, a string or brackets left open at the end of the text.
 * Text after the value closes is ignored.
 */

const LITERALS: Record<string, string> = {
  True: 'true',
  False: 'false',
  None: 'null',
  true: 'true',
  false: 'false',
  null: 'null',
  NaN: 'null',
  undefined: 'null',
};

/**
 * Rewrites the first JSON value in `text` (from its first `{` or `[`) into valid JSON syntax, or
 * returns undefined when there is no value to repair.
 *
 * @example repairJson("{'a': True, 'b': [1, 2,],}") // → '{"a": true, "b": [1, 2]}'
 */
export function repairJson(text: string): string | undefined {
  const start = firstBracket(text);
  if (start < 0) return undefined;
  const output: string[] = [];
  const closers: string[] = [];
  let index = start;
  while (index < text.length) {
    const character = text[index]!;
    if (character === '"' || character === "'") {
      const end = copyString(text, index, output);
      index = end;
      continue;
    }
    if (character === '{' || character === '[') {
      closers.push(character === '{' ? '}' : ']');
      output.push(character);
      index++;
      continue;
    }
    if (character === '}' || character === ']') {
      dropTrailingComma(output);
      const expected = closers.pop();
      output.push(expected ?? character);
      index++;
      if (closers.length === 0) return output.join('');
      continue;
    }
    if (/[0-9]/.test(character) || (character === '-' && /[0-9]/.test(text[index + 1] ?? ''))) {
      let end = index + 1;
      while (end < text.length && /[0-9eE.+-]/.test(text[end]!)) end++;
      output.push(text.slice(index, end));
      index = end;
      continue;
    }
    if (/[A-Za-z_$]/.test(character)) {
      let end = index + 1;
      while (end < text.length && /[A-Za-z0-9_$-]/.test(text[end]!)) end++;
      const word = text.slice(index, end);
      const literal = LITERALS[word];
      if (literal !== undefined && !followedByColon(text, end)) output.push(literal);
      else output.push(JSON.stringify(word));
      index = end;
      continue;
    }
    if (character === '/' && text[index + 1] === '/') {
      while (index < text.length && text[index] !== '\n') index++;
      continue;
    }
    output.push(character);
    index++;
  }
  // The text ended inside the value: close what is open.
  dropTrailingComma(output);
  if (closers[closers.length - 1] === '}') dropDanglingKey(output);
  while (closers.length > 0) output.push(closers.pop()!);
  return output.join('');
}

/** Copies a single- or double-quoted string as a JSON string; returns the index after it. */
function copyString(text: string, start: number, output: string[]): number {
  const quote = text[start]!;
  let content = '';
  let index = start + 1;
  while (index < text.length) {
    const character = text[index]!;
    if (character === '\\') {
      const next = text[index + 1];
      if (next === undefined) break;
      if (next === "'") content += "'";
      else if (/["\\/bfnrtu]/.test(next)) content += character + next;
      else content += '\\\\' + (next === '"' ? '\\"' : next);
      index += 2;
      continue;
    }
    if (character === quote) {
      output.push('"' + content + '"');
      return index + 1;
    }
    if (character === '"') content += '\\"';
    else if (character === '\n') content += '\\n';
    else if (character === '\r') content += '\\r';
    else if (character === '\t') content += '\\t';
    else if (character < ' ') content += '\\u' + character.charCodeAt(0).toString(16).padStart(4, '0');
    else content += character;
    index++;
  }
  // Unterminated string at the end of the text: close it.
  output.push('"' + content + '"');
  return text.length;
}

function firstBracket(text: string): number {
  const brace = text.indexOf('{');
  const bracket = text.indexOf('[');
  if (brace < 0) return bracket;
  if (bracket < 0) return brace;
  return Math.min(brace, bracket);
}

function followedByColon(text: string, index: number): boolean {
  while (index < text.length && (text[index] === ' ' || text[index] === '\t')) index++;
  return text[index] === ':';
}

function dropTrailingComma(output: string[]): void {
  for (let index = output.length - 1; index >= 0; index--) {
    const piece = output[index]!;
    if (piece.trim() === '') continue;
    if (piece === ',') output.splice(index, 1);
    return;
  }
}

/** `{"a": 1, "b"` or `{"a": 1, "b":` at the end of a cut text: drop the key without a value. */
function dropDanglingKey(output: string[]): void {
  let index = output.length - 1;
  while (index >= 0 && output[index]!.trim() === '') index--;
  if (index >= 0 && output[index] === ':') index--;
  while (index >= 0 && output[index]!.trim() === '') index--;
  const last = output[index];
  if (last === undefined || !last.startsWith('"')) return;
  let before = index - 1;
  while (before >= 0 && output[before]!.trim() === '') before--;
  if (output[before] === '{' || output[before] === ',') {
    output.length = output[before] === ',' ? before : index;
  }
}

/** A balanced `{…}` in a text, with where it sits. */
export interface BalancedObject {
  start: number;
  end: number;
  text: string;
  /** True when it lies inside an earlier balanced object. */
  nested: boolean;
}

/**
 * Yields each balanced `{…}` substring of `text`, in order of its opening brace, skipping braces
 * inside strings. At most `maxCandidates` starts are scanned, so a text full of braces stays cheap.
 */
export function* balancedObjects(text: string, maxCandidates = 32): Generator<BalancedObject> {
  let from = 0;
  let outerEnd = -1;
  for (let scans = 0; scans < maxCandidates; scans++) {
    const start = text.indexOf('{', from);
    if (start < 0) return;
    const end = matchingBrace(text, start);
    if (end > start) {
      const nested = start < outerEnd;
      if (!nested) outerEnd = end;
      yield { start, end, text: text.slice(start, end + 1), nested };
    }
    from = start + 1;
  }
}

/** Index of the `}` closing the `{` at `start`, or -1 (strings in double or single quotes are skipped). */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let quote = '';
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (quote !== '') {
      if (character === '\\') index++;
      else if (character === quote) quote = '';
    } else if (character === '"' || character === "'") {
      quote = character;
    } else if (character === '{') {
      depth++;
    } else if (character === '}') {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}
