/**
 * prepareStep: compiles a generator or corrector at agent load. A step is either an action call
 * (`{action: llm.call, prompt: ...}`, `uses:` accepted as an alias, parameters flat or under
 * `with:`) or Lua (`{run: ...}`), with an optional `returns: candidate | state`.
 */
import type { ActionCompiler } from '../core/action.js';
import { compileStepLua } from './compile-step-lua.js';
import type { PreparedStep, StepReturns } from './reflection-types.js';
import { isPlainObject } from '../util/plain-object.js';

const STEP_KEYS = new Set(['action', 'uses', 'with', 'run', 'code', 'language', 'returns']);
const LLM_ACTIONS = new Set(['llm.call', 'llm.stream']);

/** Compiles `raw` (the value of `field`, e.g. `generator`); throws INVALID_PARAMS with the field. */
export function prepareStep(raw: unknown, field: string, compiler: ActionCompiler): PreparedStep {
  if (!isPlainObject(raw)) {
    throw compiler.error(`\`${field}\` must be a mapping with \`action:\` (or \`uses:\`) or \`run:\``, field);
  }
  const step = raw as Record<string, unknown>;
  const returns = readReturns(step.returns, `${field}.returns`, compiler);
  const code = step.run ?? step.code;
  if (code !== undefined) {
    if (step.language !== undefined && step.language !== 'lua') {
      throw compiler.error(
        `\`${field}.language\` '${String(step.language)}' is not supported: write the code in Lua`,
        `${field}.language`,
        'UNSUPPORTED_LANGUAGE',
      );
    }
    if (step.action !== undefined || step.uses !== undefined)
      throw compiler.error(`\`${field}\` has both \`run:\` and an action; use one`, field);
    const lua = compileStepLua(code, `${field}.${step.run !== undefined ? 'run' : 'code'}`, compiler, true);
    return returns === undefined ? { kind: 'lua', lua } : { kind: 'lua', lua, returns };
  }
  const name = step.action ?? step.uses;
  if (typeof name !== 'string' || name === '') {
    throw compiler.error(
      `\`${field}\` needs \`action:\` (or \`uses:\`) naming an action, or \`run:\` with Lua code`,
      field,
    );
  }
  const definition = compiler.action(name, `${field}.${step.action !== undefined ? 'action' : 'uses'}`);
  const flat: Record<string, unknown> = {};
  for (const key of Object.keys(step)) if (!STEP_KEYS.has(key)) flat[key] = step[key];
  let params: Record<string, unknown> = flat;
  if (step.with !== undefined) {
    if (!isPlainObject(step.with)) throw compiler.error(`\`${field}.with\` must be a mapping`, `${field}.with`);
    params = { ...(step.with as Record<string, unknown>), ...flat };
  }
  const compiled = compiler.template(params, step.with !== undefined ? `${field}.with` : field);
  const prepared: PreparedStep = {
    kind: 'action',
    action: definition.name,
    llm: LLM_ACTIONS.has(definition.name),
    params: compiled,
  };
  if (returns !== undefined) prepared.returns = returns;
  return prepared;
}

function readReturns(value: unknown, field: string, compiler: ActionCompiler): StepReturns | undefined {
  if (value === undefined) return undefined;
  if (value === 'candidate' || value === 'state') return value;
  throw compiler.error(`\`${field}\` must be 'candidate' or 'state', not ${JSON.stringify(value)}`, field);
}
