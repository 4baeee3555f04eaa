/**
 * `reason.dspy.cot` and `reason.dspy.react`: TEA's DSPy wrappers. Without DSPy installed, TEA's
 * Python falls back to the native `reason.cot` / `reason.react` and marks the result with
 * `dspy_module: "native_fallback"`; tea-edge has no DSPy, so these are always that fallback. The
 * DSPy-only keys (`signature`, `compiled_key`) are accepted and echoed.
 *
 * DSPy few-shot examples name their fields after the signature (`question -> thinking, answer`
 * gives `{question, thinking, answer}`, as TEA's own DSPy example writes them): the signature's
 * first input field is read as reason.cot's `problem`, so those examples reach the prompt instead
 * of being dropped.
 */
import type { ActionCompiler, ActionDefinition, JsonSchema } from '../core/action.js';
import { isPlainObject } from '../util/plain-object.js';

const DSPY_ONLY: Record<string, JsonSchema> = {
  signature: {
    type: 'string',
    description:
      'DSPy signature, e.g. "question -> thinking, answer" (its first input names the problem in few-shot examples)',
  },
  compiled_key: {
    type: 'string',
    description: 'DSPy compiled-module key (accepted; tea-edge has no compiled modules)',
  },
};

/** The input field names DSPy examples may use for the problem (the default signature's, and common ones). */
const EXAMPLE_INPUT_FIELDS = ['question', 'problem', 'query', 'input'];

interface Prepared {
  native: unknown;
  signature: unknown;
}

export interface DspyAliasOptions {
  /** The DSPy signature TEA documents as the default. */
  defaultSignature: string;
  /** The native parameter few-shot examples' input field maps to (reason.cot: `problem`). */
  exampleTarget?: string;
}

/** An alias of `native` under `name`: same parameters plus the DSPy-only ones, result marked as TEA marks its fallback. */
export function dspyAlias(
  name: string,
  native: ActionDefinition,
  options: DspyAliasOptions,
): ActionDefinition<Prepared> {
  const nativeSchema = native.parameters ?? { type: 'object', properties: {} };
  const properties: Record<string, JsonSchema> = {
    ...((nativeSchema['properties'] ?? {}) as Record<string, JsonSchema>),
    ...DSPY_ONLY,
  };
  if (options.exampleTarget !== undefined) {
    for (const key of ['few_shot_examples', 'few_shot'])
      if (properties[key] !== undefined) properties[key] = dspyExamplesSchema(properties[key]!);
  }
  return {
    name,
    description: `TEA's DSPy wrapper of ${native.name}; tea-edge runs ${native.name} itself (TEA's fallback without DSPy) and adds dspy_module: "native_fallback".`,
    parameters: { ...nativeSchema, properties, additionalProperties: false },
    ...(native.sideEffects !== undefined ? { sideEffects: native.sideEffects } : {}),
    prepare(params: Record<string, unknown>, compiler: ActionCompiler): Prepared {
      const { signature, compiled_key: _compiledKey, ...rest } = params;
      if (options.exampleTarget !== undefined) {
        const inputField = signatureInput(signature) ?? 'question';
        for (const key of ['few_shot_examples', 'few_shot']) {
          if (Array.isArray(rest[key]))
            rest[key] = (rest[key] as unknown[]).map((example) =>
              renameInput(example, inputField, options.exampleTarget!),
            );
        }
      }
      return {
        native: native.prepare === undefined ? compiler.template(rest, 'with') : native.prepare(rest, compiler),
        signature: signature ?? options.defaultSignature,
      };
    },
    async run(prepared, context) {
      // An action without `prepare` gets its `with:` rendered by the engine; do the same here.
      const params =
        native.prepare === undefined
          ? (prepared.native as { render(scope: unknown): unknown }).render(context.scope())
          : prepared.native;
      const result = await native.run(params, context);
      const marked = isPlainObject(result) ? { ...result } : { result };
      return { ...marked, dspy_module: 'native_fallback', dspy_available: false, signature: prepared.signature };
    },
  };
}

/** The native example schema, also accepting the DSPy input field names. */
function dspyExamplesSchema(schema: JsonSchema): JsonSchema {
  const items = (schema['items'] ?? {}) as JsonSchema;
  const itemProperties = (items['properties'] ?? {}) as Record<string, JsonSchema>;
  const extra = Object.fromEntries(
    EXAMPLE_INPUT_FIELDS.filter((field) => itemProperties[field] === undefined).map((field) => [
      field,
      { type: 'string', description: 'DSPy input field; read as problem' },
    ]),
  );
  return { ...schema, items: { ...items, properties: { ...itemProperties, ...extra } } };
}

/** `"question, context -> answer"` → `question`; undefined for anything else. */
function signatureInput(signature: unknown): string | undefined {
  if (typeof signature !== 'string' || !signature.includes('->')) return undefined;
  const first = signature.split('->')[0]!.split(',')[0]!.trim();
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(first) ? first : undefined;
}

function renameInput(example: unknown, from: string, to: string): unknown {
  if (!isPlainObject(example)) return example;
  const record = example;
  if (from === to || record[to] !== undefined || record[from] === undefined) return example;
  const { [from]: value, ...rest } = record;
  return { [to]: value, ...rest };
}
