/**
 * `tojson` output, written from runtime values so integers and floats keep their look (`3/3`
 * prints `1.0`, as in Jinja). Separators follow Python's `json.dumps`: `", "` and `": "` on one
 * line, `","` and newlines with `indent`. Keys keep their order; non-ASCII is not escaped (the
 * text goes to models, not HTML).
 */
import { AgentError } from '../errors/agent-error.js';
import { type RuntimeValue, isArray, isMapping } from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';

const MAX_JSON_DEPTH = 200;

/** Serialises `value`; `indent` is a number of spaces or an indent string, or null for one line. */
export function formatJson(value: RuntimeValue, indent: number | string | null, budget: RenderBudget): string {
  const unit = typeof indent === 'number' ? ' '.repeat(Math.min(Math.max(indent, 0), 16)) : indent ?? '';
  const pretty = indent !== null && unit !== '';
  const text = write(value, 0);
  budget.size(text.length);
  return text;

  function write(item: RuntimeValue, depth: number): string {
    if (depth > MAX_JSON_DEPTH) throw new AgentError('TEMPLATE_ERROR', `tojson: value nested deeper than ${MAX_JSON_DEPTH} levels`);
    switch (item.type) {
      case 'NullValue':
      case 'UndefinedValue':
        return 'null';
      case 'BooleanValue':
        return item.value ? 'true' : 'false';
      case 'IntegerValue':
      case 'FloatValue':
        return Number.isFinite(item.value) ? item.toString() : 'null';
      case 'StringValue':
        return JSON.stringify(item.value);
      case 'FunctionValue':
        throw new AgentError('TEMPLATE_ERROR', 'tojson: cannot serialise a function');
    }
    const inner = pretty ? '\n' + unit.repeat(depth + 1) : '';
    const outer = pretty ? '\n' + unit.repeat(depth) : '';
    const separator = pretty ? ',' : ', ';
    const parts: string[] = [];
    if (isArray(item)) {
      if (item.value.length === 0) return '[]';
      for (const element of item.value) {
        budget.step();
        parts.push(inner + write(element, depth + 1));
      }
      return `[${parts.join(separator)}${outer}]`;
    }
    if (isMapping(item)) {
      for (const [key, element] of item.value) {
        budget.step();
        parts.push(`${inner}${JSON.stringify(key)}: ${write(element, depth + 1)}`);
      }
      return parts.length === 0 ? '{}' : `{${parts.join(separator)}${outer}}`;
    }
    throw new AgentError('TEMPLATE_ERROR', `tojson: cannot serialise a ${item.type}`);
  }
}
