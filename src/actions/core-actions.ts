/** Built-in actions of the engine itself: validate.schema, json.parse, tools.list. */
import { AgentError } from '../core/agent-error.js';
import { DEFAULT_JSON_LIMITS, parseJsonSafely } from '../util/untrusted-json.js';
import type { ActionDefinition, CompiledSchema } from '../core/action.js';
import type { CompiledValue } from '../templates/types.js';

interface ValidateParams {
  data: CompiledValue;
  schema: CompiledSchema;
  coerce: boolean;
}

const validateSchema: ActionDefinition<ValidateParams> = {
  name: 'validate.schema',
  description:
    'Validates data against a JSON Schema (inline, or `$ref` to a schema in `schemas:`); returns {valid, errors}.',
  parameters: {
    type: 'object',
    required: ['data', 'schema'],
    properties: { data: {}, schema: { type: 'object' }, coerce: { type: 'boolean' } },
    additionalProperties: false,
  },
  prepare(params, compiler) {
    if (params.schema === undefined) throw compiler.error('`schema` is required', 'schema');
    return {
      data: compiler.template(params.data, 'data'),
      schema: compiler.schema(params.schema, 'schema'),
      coerce: params.coerce === true,
    };
  },
  run(params, context) {
    const data = params.data.render(context.scope());
    const result = params.schema.validate(data, { coerce: params.coerce });
    return { valid: result.valid, errors: result.errors };
  },
};

const jsonParse: ActionDefinition = {
  name: 'json.parse',
  description:
    'Parses JSON text (fences stripped); returns {data}. Invalid JSON fails the node unless `strict: false`, which returns {data: null, error}.',
  parameters: {
    type: 'object',
    required: ['text'],
    properties: { text: { type: 'string' }, strict: { type: 'boolean' } },
    additionalProperties: false,
  },
  run(params) {
    const text = params.text;
    if (typeof text !== 'string') {
      if (params.strict === false) return { data: null, error: '`text` is not a string' };
      throw new AgentError('INVALID_PARAMS', '`text` must be a string');
    }
    const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
    const parsed = parseJsonSafely((fenced?.[1] ?? text).trim(), {
      ...DEFAULT_JSON_LIMITS,
      maxLength: 8 * 1024 * 1024,
    });
    if (parsed.ok) return { data: parsed.value };
    if (params.strict === false) return { data: null, error: parsed.error };
    throw new AgentError('INPUT_INVALID', `json.parse: ${parsed.error}`);
  },
};

const toolsList: ActionDefinition = {
  name: 'tools.list',
  description:
    'Lists the registered actions usable as tools, with name, description and parameter JSON Schema; returns {tools, count}. `filter` keeps only the named actions.',
  parameters: {
    type: 'object',
    properties: {
      filter: { type: 'array', items: { type: 'string' }, description: 'action names to keep (TEA Rust)' },
    },
    additionalProperties: false,
  },
  run(params, context) {
    const filter = params.filter;
    if (
      filter !== undefined &&
      filter !== null &&
      (!Array.isArray(filter) || !filter.every((name) => typeof name === 'string'))
    ) {
      throw new AgentError('INVALID_PARAMS', 'tools.list: `filter` must be a list of action names', {
        field: 'filter',
      });
    }
    const wanted = Array.isArray(filter) ? new Set<string>(filter as string[]) : undefined;
    const tools = context.listActions().filter((tool) => wanted === undefined || wanted.has(tool.name));
    return { tools, count: tools.length };
  },
};

export function coreActions(): ActionDefinition[] {
  return [validateSchema as ActionDefinition, jsonParse, toolsList];
}
