/**
 * `compileValue`: a value from the agent file (a `with:` block, a message list, an output
 * mapping) with every templated string compiled once. Objects and lists are walked; rendering
 * builds a fresh structure each time, so two renders never share objects.
 */
import { AgentError } from '../core/agent-error.js';
import { compileTemplate } from './compile-template.js';
import { BLOCKED_KEYS, copyData } from './jinja-runtime.js';
import type { CompiledValue, TemplateLocation, TemplateOptions, TemplateScope } from './types.js';

/** Deeper than this is not an agent file (the YAML loader caps depth well below). */
const MAX_VALUE_DEPTH = 100;

interface CompiledPart {
  readonly isStatic: boolean;
  render(scope: TemplateScope): unknown;
}

/** True for strings that contain template syntax (`{{` or `{%`). */
export function hasTemplateSyntax(text: string): boolean {
  return text.includes('{{') || text.includes('{%');
}

/**
 * Compiles every templated string inside `value`; `where.field` is the base of the field paths
 * named in errors (`with.messages[1].content`). Keys `__proto__`, `constructor` and `prototype`
 * are dropped, never written.
 *
 * @example
 * const params = compileValue({ prompt: 'Hi {{ state.name }}', limit: '{{ variables.max }}' }, { node: 'ask', field: 'with' });
 * params.render({ state: { name: 'Ada' }, variables: { max: 3 } }); // { prompt: 'Hi Ada', limit: 3 }
 */
export function compileValue(
  value: unknown,
  where: TemplateLocation = {},
  options: TemplateOptions = {},
): CompiledValue {
  const part = compilePart(value, where.field ?? '', where, options, 0);
  return {
    source: value,
    isStatic: part.isStatic,
    render: (scope: TemplateScope) => part.render(scope),
  };
}

function compilePart(
  value: unknown,
  path: string,
  where: TemplateLocation,
  options: TemplateOptions,
  depth: number,
): CompiledPart {
  if (depth > MAX_VALUE_DEPTH) {
    throw new AgentError('INVALID_AGENT', `value nested deeper than ${MAX_VALUE_DEPTH} levels`, {
      ...where,
      field: path || undefined,
    });
  }
  if (typeof value === 'string') {
    if (!hasTemplateSyntax(value)) return staticPart(value);
    const template = compileTemplate(value, { ...where, field: path || undefined }, options);
    return { isStatic: false, render: (scope) => template.render(scope) };
  }
  if (Array.isArray(value)) {
    const items = value.map((item, index) => compilePart(item, `${path}[${index}]`, where, options, depth + 1));
    if (items.every((item) => item.isStatic)) return staticPart(value);
    return { isStatic: false, render: (scope) => items.map((item) => item.render(scope)) };
  }
  if (value !== null && typeof value === 'object') {
    const entries: [string, CompiledPart][] = [];
    for (const key of Object.keys(value)) {
      if (BLOCKED_KEYS.has(key)) continue;
      entries.push([
        key,
        compilePart((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key, where, options, depth + 1),
      ]);
    }
    if (entries.every(([, part]) => part.isStatic)) return staticPart(value);
    return {
      isStatic: false,
      render: (scope) => {
        const result: Record<string, unknown> = {};
        for (const [key, part] of entries) result[key] = part.render(scope);
        return result;
      },
    };
  }
  return staticPart(value);
}

/** A part with no templates: renders a fresh copy (blocked keys already dropped by copyData). */
function staticPart(value: unknown): CompiledPart {
  if (value === null || typeof value !== 'object') return { isStatic: true, render: () => value };
  return { isStatic: true, render: () => copyData(value) };
}
