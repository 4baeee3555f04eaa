/**
 * Schema pieces shared by the actions' `parameters`: the model-call keys, an action step
 * (generator, corrector) and an evaluator. The actions publish these shapes (tools.list, tool
 * calling) and the loader checks every `with:` against them (closed-shape.ts), so an unknown key
 * is a load error with a suggestion instead of being ignored.
 *
 * Two keywords of our own, read only by closed-shape.ts (JSON Schema ignores unknown keywords):
 * - `x-tea-action-params: [keys]`: the object names an action in the first of these keys that is
 *   present; keys it does not list itself are that action's parameters (flat), and its `with:`
 *   mapping is that action's parameters too.
 * - `x-tea-provider: true`: a literal value must be a known provider preset.
 */
import type { JsonSchema } from '../core/json-schema.js';
import {
  MODEL_MAX_TOKENS_CEILING,
  MODEL_RETRIES_CEILING,
  MODEL_TIMEOUT_SECONDS_CEILING,
} from '../core/setting-ceilings.js';

export const ACTION_PARAMS_KEYWORD = 'x-tea-action-params';
export const PROVIDER_KEYWORD = 'x-tea-provider';

/** A model provider name: checked against the presets when it is literal text. */
export const PROVIDER_PARAMETER: JsonSchema = {
  type: 'string',
  description: 'ollama | lmstudio | llamacpp | vllm | openai | openai-compatible | scripted',
  [PROVIDER_KEYWORD]: true,
};

/** Every key a model call understands, with its schema. */
const LLM_PROPERTY_SCHEMAS: Record<string, JsonSchema> = {
  model: { type: 'string' },
  temperature: { type: 'number', minimum: 0, default: 0.7 },
  max_tokens: { type: 'integer', minimum: 1, maximum: MODEL_MAX_TOKENS_CEILING },
  response_format: { description: 'json_object, or {type: json_schema, json_schema: {name, schema}}' },
  provider: PROVIDER_PARAMETER,
  api_base: { type: 'string' },
  base_url: { type: 'string', description: 'alias of api_base' },
  api_key: { type: 'string' },
  timeout: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: MODEL_TIMEOUT_SECONDS_CEILING,
    description:
      'seconds: the longest silence of the server between bytes once the answer started (default 60); also the first-byte wait when `first_token_timeout` is not set',
  },
  first_token_timeout: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: MODEL_TIMEOUT_SECONDS_CEILING,
    description:
      'seconds: the longest wait for the first byte of the answer, whole or streamed (default: `timeout` when set, else 120)',
  },
  max_retries: { type: 'integer', minimum: 0, maximum: MODEL_RETRIES_CEILING },
  top_p: { type: 'number' },
  seed: { type: 'integer' },
  stop: { type: ['string', 'array'] },
  presence_penalty: { type: 'number' },
  frequency_penalty: { type: 'number' },
  scripted: { type: ['array', 'object'], description: 'scripted model responses or rules' },
};

/** Every key a model call (`llm.call`, `settings.llm`) understands. */
export const MODEL_CALL_KEYS: readonly string[] = Object.keys(LLM_PROPERTY_SCHEMAS);

/** The host ceiling of a reflection loop's `max_iterations` (docs/security.md budgets). */
export const REFLECTION_ITERATIONS_CEILING = 100;

/** The schemas of the given model-call keys (each key must be one of LLM_PROPERTY_SCHEMAS). */
export function llmProperties(keys: readonly string[]): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const key of keys) {
    const schema = LLM_PROPERTY_SCHEMAS[key];
    if (schema === undefined) throw new Error(`no schema for model-call key '${key}'`);
    properties[key] = schema;
  }
  return properties;
}

/** An `llm.tools` entry: an action name, TEA's `{name, description, parameters, action}`, or an OpenAI tool. */
export const TOOL_ENTRY_SHAPE: JsonSchema = {
  anyOf: [
    { type: 'string', description: 'an action name' },
    {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        parameters: { type: 'object', description: 'TEA style {param: {type, description, enum, required}}' },
        action: { type: 'string', description: 'the action to run (default: name)' },
      },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['type', 'function'],
      properties: {
        type: { const: 'function' },
        function: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } },
          additionalProperties: false,
        },
        action: { type: 'string' },
      },
      additionalProperties: false,
    },
  ],
};

/** A generator or corrector: `{action|uses: <action>, ...its params}`, `with:` form, or `{run: <lua>}`. */
export function actionStep(description: string): JsonSchema {
  return {
    type: 'object',
    description,
    properties: {
      action: { type: 'string', description: 'the action to run (alias: uses)' },
      uses: { type: 'string' },
      with: { type: 'object', description: "the action's parameters (or give them flat)" },
      run: { type: 'string', description: 'Lua code instead of an action' },
      code: { type: 'string', description: 'alias of run' },
      language: { enum: ['lua'] },
      returns: { enum: ['candidate', 'state'] },
    },
    [ACTION_PARAMS_KEYWORD]: ['action', 'uses'],
  };
}

/** An evaluator, by `type`: schema (the default), llm (a judge) or lua/custom. */
export function evaluatorShape(judgeKeys: readonly string[]): JsonSchema {
  return {
    type: 'object',
    description: '{type: schema|llm|lua, ...}',
    anyOf: [
      {
        type: 'object',
        properties: {
          type: { const: 'schema', default: 'schema' },
          schema: {
            type: ['object', 'string'],
            description: 'inline JSON Schema, or the name of one under `schemas:`',
          },
          coerce: { type: 'boolean', default: true },
        },
        additionalProperties: false,
      },
      {
        type: 'object',
        required: ['type'],
        properties: {
          type: { const: 'llm' },
          prompt: { type: 'string' },
          examples: { type: 'array', items: { type: 'object' } },
          name: { type: 'string', description: 'label of the judge in events' },
          ...llmProperties(judgeKeys),
        },
        additionalProperties: false,
      },
      {
        type: 'object',
        required: ['type'],
        properties: {
          type: { enum: ['lua', 'custom'] },
          run: { type: 'string' },
          code: { type: 'string' },
          language: { enum: ['lua', 'prolog'] },
          threshold: { type: 'number', default: 0.5 },
        },
        additionalProperties: false,
      },
    ],
  };
}
