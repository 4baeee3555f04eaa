/**
 * prepareEvaluator: compiles an evaluator spec at agent load (docs/spec.md#52-evaluators).
 *
 * - `type: schema` (the default, as in TEA): `schema` inline, a `$ref`, or the bare name of a
 *   schema declared under the agent's `schemas:`; `coerce` (default true) applies TEA's
 *   validation-only type coercion.
 * - `type: llm`: optional Jinja `prompt`, few-shot `examples: [{input, output}]`, and any
 *   `settings.llm` key (`model`, `temperature`, `api_base`, …) as a per-evaluator override.
 * - `type: lua`, or `type: custom` with `language: lua` (the default language): `run` (or
 *   `code`), optional `threshold` (0.5) for numeric results.
 * Anything else is INVALID_PARAMS (or UNSUPPORTED_LANGUAGE for Python/Prolog) at load.
 */
import type { ActionCompiler } from '../../core/action.js';
import { compileStepLua } from '../compile-step-lua.js';
import type { PreparedEvaluator } from '../reflection-types.js';
import { templateShowsOutput } from './template-references.js';
import { isPlainObject } from '../../util/plain-object.js';

/** The keys of an `llm` evaluator passed on to the model call. */
export const JUDGE_LLM_KEYS = [
  'model',
  'api_base',
  'base_url',
  'api_key',
  'provider',
  'temperature',
  'max_tokens',
  'timeout',
  'max_retries',
  'top_p',
  'seed',
  'stop',
  'response_format',
];

const EVALUATOR_TYPES = ['schema', 'llm', 'lua', 'custom'];

/** `evaluator` + `schema` → `evaluator.schema`; with no base (TEA's flat form) just `schema`. */
function at(field: string, name: string): string {
  return field === '' ? name : `${field}.${name}`;
}

/** Compiles `raw`, the value of `field` (e.g. `evaluator`; '' when the keys sit directly in `with:`). */
export function prepareEvaluator(raw: unknown, field: string, compiler: ActionCompiler): PreparedEvaluator {
  if (!isPlainObject(raw)) {
    throw compiler.error(
      `\`${field || 'with'}\` must be a mapping with a \`type\` (schema, llm or lua)`,
      field || undefined,
    );
  }
  const spec = raw as Record<string, unknown>;
  const type = spec.type ?? 'schema';
  if (typeof type !== 'string' || !EVALUATOR_TYPES.includes(type)) {
    throw compiler.error(
      `unknown evaluator type ${JSON.stringify(type)}: use 'schema', 'llm' or 'lua' (or 'custom' with language: lua)`,
      at(field, 'type'),
    );
  }
  switch (type) {
    case 'schema':
      return prepareSchema(spec, field, compiler);
    case 'llm':
      return prepareJudge(spec, field, compiler);
    default:
      return prepareLua(spec, field, compiler);
  }
}

function prepareSchema(spec: Record<string, unknown>, field: string, compiler: ActionCompiler): PreparedEvaluator {
  let schema = spec.schema;
  if (schema === undefined)
    throw compiler.error(
      'Schema required for schema evaluator: add `schema:` (inline, or the name of a schema under `schemas:`)',
      at(field, 'schema'),
    );
  if (typeof schema === 'string') schema = { $ref: schema };
  if (spec.coerce !== undefined && typeof spec.coerce !== 'boolean')
    throw compiler.error('`coerce` must be true or false', at(field, 'coerce'));
  return { type: 'schema', schema: compiler.schema(schema, at(field, 'schema')), coerce: spec.coerce !== false };
}

function prepareJudge(spec: Record<string, unknown>, field: string, compiler: ActionCompiler): PreparedEvaluator {
  if (spec.prompt !== undefined && typeof spec.prompt !== 'string')
    throw compiler.error('`prompt` must be text', at(field, 'prompt'));
  const examples = spec.examples ?? [];
  if (!Array.isArray(examples) || !examples.every(isPlainObject)) {
    throw compiler.error('`examples` must be a list of {input, output} mappings', at(field, 'examples'));
  }
  const llm: Record<string, unknown> = {};
  for (const key of JUDGE_LLM_KEYS) if (spec[key] !== undefined) llm[key] = spec[key];
  const prepared: PreparedEvaluator = {
    type: 'llm',
    examples: compiler.template(examples, at(field, 'examples')),
    llm: compiler.template(llm, field || 'with'),
    label: typeof spec.name === 'string' ? spec.name : 'judge',
    promptShowsOutput: typeof spec.prompt === 'string' && templateShowsOutput(spec.prompt),
  };
  if (spec.prompt !== undefined) prepared.prompt = compiler.template(spec.prompt, at(field, 'prompt'));
  return prepared;
}

function prepareLua(spec: Record<string, unknown>, field: string, compiler: ActionCompiler): PreparedEvaluator {
  const language = spec.language ?? 'lua';
  if (language !== 'lua' && language !== 'prolog') {
    throw compiler.error(
      `evaluator language '${String(language)}' is not supported: write the evaluator in Lua (type: lua)`,
      at(field, 'language'),
      'UNSUPPORTED_LANGUAGE',
    );
  }
  const code = spec.run ?? spec.code;
  if (typeof code !== 'string' || code.trim() === '')
    throw compiler.error('a Lua evaluator needs `run:` (or `code:`) with Lua code', at(field, 'run'));
  const threshold = spec.threshold ?? 0.5;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold))
    throw compiler.error('`threshold` must be a number', at(field, 'threshold'));
  const codeField = at(field, spec.run !== undefined ? 'run' : 'code');
  // `language: prolog`: the host's Prolog sandbox compiles it; the candidate passes when the rules hold.
  if (language === 'prolog') return { type: 'prolog', prolog: compiler.script('prolog', code, codeField), threshold };
  return { type: 'lua', lua: compileStepLua(code, codeField, compiler), threshold };
}
