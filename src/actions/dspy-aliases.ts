/**
 * `reason.dspy.cot` and `reason.dspy.react`: TEA's DSPy wrappers. Without DSPy installed, TEA's
 * Python falls back to the native `reason.cot` / `reason.react` and marks the result with
 * `dspy_module: "native_fallback"`; tea-edge has no DSPy, so these are always that fallback. The
 * DSPy-only keys (`signature`, `compiled_key`) are accepted and echoed, and change nothing.
 */
import type { ActionCompiler, ActionDefinition, JsonSchema } from './types.js';

const DSPY_ONLY: Record<string, JsonSchema> = {
  signature: { type: 'string', description: 'DSPy signature (accepted; tea-edge has no DSPy, so it changes nothing)' },
  compiled_key: { type: 'string', description: 'DSPy compiled-module key (accepted; ignored)' },
};

interface Prepared {
  native: unknown;
  signature: unknown;
}

/** An alias of `native` under `name`: same parameters plus the DSPy-only ones, result marked as TEA marks its fallback. */
export function dspyAlias(name: string, native: ActionDefinition, defaultSignature: string): ActionDefinition<Prepared> {
  const nativeSchema = native.parameters ?? { type: 'object', properties: {} };
  const nativeProperties = (nativeSchema['properties'] ?? {}) as Record<string, JsonSchema>;
  return {
    name,
    description: `TEA's DSPy wrapper of ${native.name}; tea-edge runs ${native.name} itself (TEA's fallback without DSPy) and adds dspy_module: "native_fallback".`,
    parameters: { ...nativeSchema, properties: { ...nativeProperties, ...DSPY_ONLY }, additionalProperties: false },
    ...(native.sideEffects !== undefined ? { sideEffects: native.sideEffects } : {}),
    prepare(params: Record<string, unknown>, compiler: ActionCompiler): Prepared {
      const { signature, compiled_key: _compiledKey, ...rest } = params;
      return { native: native.prepare === undefined ? compiler.template(rest, 'with') : native.prepare(rest, compiler), signature: signature ?? defaultSignature };
    },
    async run(prepared, context) {
      // An action without `prepare` gets its `with:` rendered by the engine; do the same here.
      const params = native.prepare === undefined ? (prepared.native as { render(scope: unknown): unknown }).render(context.scope()) : prepared.native;
      const result = await native.run(params, context);
      const marked = typeof result === 'object' && result !== null && !Array.isArray(result) ? { ...(result as Record<string, unknown>) } : { result };
      return { ...marked, dspy_module: 'native_fallback', dspy_available: false, signature: prepared.signature };
    },
  };
}
