/**
 * withSchemaResponseFormat: `response_format: schema` on an `llm.call` generator or corrector asks
 * the server for constrained decoding with the schema evaluator's own schema (OpenAI-style
 * `{type: json_schema, json_schema: {name, schema}}`, honoured by recent Ollama, llama.cpp, vLLM
 * and LM Studio), which keeps small local models on the schema instead of relying on the prompt.
 * The schema must be inline and self-contained (`$ref`s only to `#…` inside it): the server
 * cannot see the agent's `schemas:`. Checked at load. Use it only with servers that support it
 * (`tea-edge probe` tells).
 */
import type { ActionCompiler } from '../core/action.js';
import { isPlainObject } from '../util/plain-object.js';

export function withSchemaResponseFormat(
  step: unknown,
  evaluator: unknown,
  field: string,
  compiler: ActionCompiler,
): unknown {
  if (!isPlainObject(step)) return step;
  const raw = step as Record<string, unknown>;
  const nested = isPlainObject(raw.with) ? raw.with : undefined;
  const inWith = nested?.response_format === 'schema';
  if (raw.response_format !== 'schema' && !inWith) return step;
  const at = inWith ? `${field}.with.response_format` : `${field}.response_format`;
  const spec = typeof evaluator === 'object' && evaluator !== null ? (evaluator as Record<string, unknown>) : {};
  const schema = spec.schema;
  if ((spec.type ?? 'schema') !== 'schema' || !isPlainObject(schema)) {
    throw compiler.error('`response_format: schema` needs a schema evaluator with an inline `schema`', at);
  }
  const external = externalReference(schema);
  if (external !== undefined) {
    throw compiler.error(
      `\`response_format: schema\` needs a self-contained schema; the server cannot resolve $ref ${JSON.stringify(external)}`,
      at,
    );
  }
  const format = { type: 'json_schema', json_schema: { name: 'output', schema } };
  return inWith ? { ...raw, with: { ...nested, response_format: format } } : { ...raw, response_format: format };
}

function externalReference(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = externalReference(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const node = value as Record<string, unknown>;
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) return node.$ref;
  for (const key of Object.keys(node)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    const found = externalReference(node[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
