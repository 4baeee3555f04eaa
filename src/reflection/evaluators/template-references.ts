/**
 * Does a judge prompt show the judge the output it judges? Decided from the parsed template, not
 * from the words in it: "Is this a good output?" mentions the word but shows nothing, while
 * `{{ output }}`, `{{ output_to_evaluate | upper }}`, `{% for line in output %}` or
 * `{{ state.reflection_output }}` do. A read-only walk of the @huggingface/jinja syntax tree
 * (src/templates parses the same text at load; this only looks).
 *
 * Names in positions that are not variable reads do not count: a member name (`state.output`),
 * a filter or test name, a keyword argument's key, a loop or `set` target.
 */
import { parse, tokenize } from '@huggingface/jinja';

/** Top-level names the judge prompt is rendered with that hold the output. */
const OUTPUT_NAMES: ReadonlySet<string> = new Set(['output', 'output_to_evaluate']);

type Node = Record<string, unknown> & { type: string };

/**
 * True when `source` reads the output to judge. A template that does not parse here (it parsed at
 * load, so this should not happen) counts as not showing it: the caller then wraps the output in,
 * and the judge sees it once too many rather than never.
 */
export function templateShowsOutput(source: string): boolean {
  let program: unknown;
  try {
    program = parse(tokenize(source));
  } catch {
    return false;
  }
  return readsOutput(program);
}

function readsOutput(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(readsOutput);
  if (value instanceof Map) return [...value.entries()].some(([key, entry]) => readsOutput(key) || readsOutput(entry));
  if (!isNode(value)) return false;
  switch (value.type) {
    case 'Identifier':
      return OUTPUT_NAMES.has(value.value as string);
    case 'MemberExpression':
      return (
        isStateReflectionOutput(value) ||
        readsOutput(value.object) ||
        (value.computed === true && readsOutput(value.property))
      );
    case 'FilterExpression':
      return (
        readsOutput(value.operand) ||
        (isNode(value.filter) && value.filter.type === 'CallExpression' && readsOutput(value.filter.args))
      );
    case 'FilterStatement':
      return (
        (isNode(value.filter) && value.filter.type === 'CallExpression' && readsOutput(value.filter.args)) ||
        readsOutput(value.body)
      );
    case 'TestExpression':
      return readsOutput(value.operand);
    case 'KeywordArgumentExpression':
      return readsOutput(value.value);
    case 'For':
      return readsOutput(value.iterable) || readsOutput(value.body) || readsOutput(value.defaultBlock);
    case 'Set':
      return readsOutput(value.value) || readsOutput(value.body);
    case 'Macro':
      return readsOutput(value.body);
    default:
      return Object.values(value).some(readsOutput);
  }
}

/** `state.reflection_output` or `state['reflection_output']`. */
function isStateReflectionOutput(member: Node): boolean {
  const object = member.object;
  const property = member.property;
  if (!isNode(object) || object.type !== 'Identifier' || object.value !== 'state' || !isNode(property)) return false;
  const name =
    member.computed === true
      ? property.type === 'StringLiteral'
        ? property.value
        : undefined
      : property.type === 'Identifier'
        ? property.value
        : undefined;
  return name === 'reflection_output';
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
