/**
 * `tojson` output, written from runtime values so integers and floats keep their look (`3/3`
 * prints `1.0`, as in Jinja). Separators follow Python's `json.dumps`: `", "` and `": "` on one
 * line, `","` and newlines with `indent`. Keys keep their order; non-ASCII is not escaped (the
 * text goes to models, not HTML). Written into a TextWriter, so a value whose JSON would pass the
 * size cap fails at the cap rather than after being built whole.
 */
import { AgentError } from '../core/agent-error.js';
import { type RuntimeValue, isArray, isMapping } from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';
import { TextWriter } from './text-writer.js';

const MAX_JSON_DEPTH = 200;

/** Serialises `value`; `indent` is a number of spaces or an indent string (both up to 16), or null for one line. */
export function formatJson(value: RuntimeValue, indent: number | string | null, budget: RenderBudget): string {
  const unit = typeof indent === 'number' ? ' '.repeat(Math.min(Math.max(indent, 0), 16)) : (indent ?? '').slice(0, 16);
  const pretty = indent !== null && unit !== '';
  const writer = new TextWriter(budget.limits.maxOutputChars);
  write(value, 0);
  budget.work(writer.length);
  return writer.text();

  function write(item: RuntimeValue, depth: number): void {
    if (depth > MAX_JSON_DEPTH)
      throw new AgentError('TEMPLATE_LIMIT', `tojson: value nested deeper than ${MAX_JSON_DEPTH} levels`);
    switch (item.type) {
      case 'NullValue':
      case 'UndefinedValue':
        return writer.write('null');
      case 'BooleanValue':
        return writer.write(item.value ? 'true' : 'false');
      case 'IntegerValue':
      case 'FloatValue':
        return writer.write(Number.isFinite(item.value) ? item.toString() : 'null');
      case 'StringValue':
        return writer.writeQuoted(item.value as string);
      case 'FunctionValue':
        throw new AgentError('TEMPLATE_ERROR', 'tojson: cannot serialise a function');
    }
    const inner = pretty ? '\n' + unit.repeat(depth + 1) : '';
    const outer = pretty ? '\n' + unit.repeat(depth) : '';
    const separator = pretty ? ',' : ', ';
    if (isArray(item)) {
      if (item.value.length === 0) return writer.write('[]');
      writer.write('[');
      item.value.forEach((element, index) => {
        writer.write(index === 0 ? inner : separator + inner);
        write(element, depth + 1);
      });
      return writer.write(outer + ']');
    }
    if (isMapping(item)) {
      if (item.value.size === 0) return writer.write('{}');
      writer.write('{');
      let first = true;
      for (const [key, element] of item.value) {
        writer.write(first ? inner : separator + inner);
        first = false;
        writer.writeQuoted(key);
        writer.write(': ');
        write(element, depth + 1);
      }
      return writer.write(outer + '}');
    }
    throw new AgentError('TEMPLATE_ERROR', `tojson: cannot serialise a ${item.type}`);
  }
}
