/**
 * Turning runtime values into text without ever building more than a cap. The library's own
 * `toString` serialises a whole list before anyone can look at its size, so a list holding the
 * same million-item list a million times would build terabytes; here every value is written
 * piece by piece into a writer that stops at its cap. The text is the library's (lists and
 * objects as JSON with `", "` and `": "`), so output does not change.
 */
import { AgentError } from '../core/agent-error.js';
import { type RuntimeValue, isArray, isMapping } from './jinja-runtime.js';
import { type RenderBudget, limitError } from './render-budget.js';

/** Deepest nesting printed (data is JSON; deeper means a cycle through a namespace). */
const MAX_PRINT_DEPTH = 200;

/** Collects text and throws `TEMPLATE_LIMIT` as soon as it would pass `limit` characters. */
export class TextWriter {
  // Appended with `+=`: the engine keeps the pieces as a rope and flattens once, when read.
  #text = '';
  readonly #limit: number;
  length = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  write(text: string): void {
    if (text.length + this.length > this.#limit) this.#overflow();
    this.length += text.length;
    this.#text += text;
  }

  /** `text` as a JSON string; a text that cannot fit is refused before it is quoted (copied). */
  writeQuoted(text: string): void {
    if (text.length + this.length > this.#limit) this.#overflow();
    this.write(JSON.stringify(text));
  }

  #overflow(): never {
    throw limitError('a value printed as text (characters)', this.#limit, 'maxOutputChars');
  }

  /** Writes `value` as it prints (strings as they are, lists and objects as JSON). */
  writeValue(value: RuntimeValue): void {
    if (value.type === 'StringValue') this.write(value.value as string);
    else if (isArray(value) || isMapping(value)) this.#writeNested(value, 0);
    else this.write(scalarText(value));
  }

  text(): string {
    return this.#text;
  }

  #writeNested(value: RuntimeValue, depth: number): void {
    // Deeper than any JSON state: a namespace that holds itself, a limit rather than a mistake in the text.
    if (depth > MAX_PRINT_DEPTH)
      throw new AgentError('TEMPLATE_LIMIT', `cannot print a value nested deeper than ${MAX_PRINT_DEPTH} levels`);
    if (isArray(value)) {
      this.write('[');
      const items = value.value;
      for (let index = 0; index < items.length; index++) {
        if (index > 0) this.write(', ');
        this.#writeNested(items[index]!, depth + 1);
      }
      this.write(']');
      return;
    }
    if (isMapping(value)) {
      this.write('{');
      let first = true;
      for (const [key, item] of value.value) {
        if (!first) this.write(', ');
        first = false;
        this.writeQuoted(key);
        this.write(': ');
        this.#writeNested(item, depth + 1);
      }
      this.write('}');
      return;
    }
    switch (value.type) {
      case 'StringValue':
        this.writeQuoted(value.value as string);
        return;
      case 'IntegerValue':
      case 'FloatValue':
      case 'BooleanValue':
        // Inside lists the library writes JSON numbers (`1`, not `1.0`; NaN and infinities as null).
        this.write(
          value.type === 'BooleanValue'
            ? String(value.value)
            : Number.isFinite(value.value)
              ? String(value.value)
              : 'null',
        );
        return;
      case 'NullValue':
        this.write('null');
        return;
      case 'UndefinedValue':
        this.write('undefined');
        return;
      default:
        throw new AgentError('TEMPLATE_ERROR', `cannot print a ${value.type} inside a list or object`);
    }
  }
}

/** Text of a value that is not a string, list or object (as the library prints it). */
function scalarText(value: RuntimeValue): string {
  if (value.type === 'FunctionValue')
    throw new AgentError('TEMPLATE_ERROR', 'cannot print a function; call it or drop it');
  return value.toString();
}

/**
 * The text a value prints as: null and undefined print nothing, lists and objects as JSON. At most
 * `limit` characters (the output cap by default) are built; what is built is charged as work.
 */
export function toText(
  value: RuntimeValue,
  budget: RenderBudget,
  limit: number = budget.limits.maxOutputChars,
): string {
  switch (value.type) {
    case 'StringValue':
      return value.value as string;
    case 'NullValue':
    case 'UndefinedValue':
      return '';
    case 'IntegerValue':
    case 'FloatValue':
    case 'BooleanValue':
    case 'FunctionValue':
      return scalarText(value);
  }
  const writer = new TextWriter(limit);
  writer.writeValue(value);
  budget.work(writer.length);
  return writer.text();
}
