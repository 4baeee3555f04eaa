/**
 * The Lua budgets' defaults and host ceilings (docs/spec.md#3-inline-lua, src/lua/README.md). A budget above its
 * ceiling, not a positive finite number, is refused: `settings.lua` at agent load
 * (`luaBudgetFromSettings`, INVALID_AGENT naming the field) and any budget handed to a call
 * (`resolveBudget`, INVALID_PARAMS), so no agent can buy itself an endless or unbounded call.
 */
import { AgentError } from '../core/agent-error.js';
import type { LuaBudget } from './types.js';
import { isPlainObject } from '../util/plain-object.js';
import { quoteText } from '../util/cut-text.js';

/** The defaults of docs/spec.md#3-inline-lua, plus the cap on `print` output. */
export const DEFAULT_LUA_BUDGET: Readonly<Required<LuaBudget>> = Object.freeze({
  instructions: 1_000_000,
  maxStringBytes: 1024 * 1024,
  totalStringBytes: 16 * 1024 * 1024,
  // ~250k slots keeps one call well under a Workers isolate's 128 MB.
  tableSlots: 250_000,
  patternSteps: 1_000_000,
  printBytes: 64 * 1024,
});

/**
 * The most any agent or host may set. fengari runs about 10–20 million instructions a second in
 * Node, so the instruction ceiling bounds one call to seconds; the memory ceilings keep one call
 * (strings twice: in Lua and once converted out) well under 512 MB.
 */
export const LUA_BUDGET_CEILINGS: Readonly<Required<LuaBudget>> = Object.freeze({
  instructions: 100_000_000,
  maxStringBytes: 16 * 1024 * 1024,
  totalStringBytes: 64 * 1024 * 1024,
  tableSlots: 1_000_000,
  patternSteps: 100_000_000,
  printBytes: 1024 * 1024,
});

/** The keys of `settings.lua` an agent may set, and the budget each sets. */
const SETTINGS_KEYS: Readonly<Record<string, keyof LuaBudget>> = Object.freeze({ instructions: 'instructions' });

/** Why `value` is not an acceptable value for `key`, or undefined when it is. */
function problemWith(key: keyof LuaBudget, value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return `must be a finite number, got ${describe(value)}`;
  if (value <= 0) return `must be positive, got ${value}`;
  const ceiling = LUA_BUDGET_CEILINGS[key];
  if (value > ceiling) return `is over its ceiling of ${ceiling} (got ${value})`;
  return undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string ${quoteText(value, 40)}`;
  return value === null ? 'null' : typeof value;
}

/** Resolves a partial budget against the defaults. Throws INVALID_PARAMS for a value that is not positive, finite and under its ceiling. */
export function resolveBudget(budget: LuaBudget | undefined): Required<LuaBudget> {
  const resolved = { ...DEFAULT_LUA_BUDGET };
  if (budget === undefined) return resolved;
  for (const key of Object.keys(resolved) as (keyof LuaBudget)[]) {
    const value = budget[key];
    if (value === undefined) continue;
    const problem = problemWith(key, value);
    if (problem !== undefined)
      throw new AgentError('INVALID_PARAMS', `the Lua budget '${key}' ${problem}`, {
        details: { budget: key, ceiling: LUA_BUDGET_CEILINGS[key] },
      });
    resolved[key] = Math.floor(value);
  }
  return resolved;
}

/**
 * Reads the Lua budget an agent sets in `settings.lua` (only `instructions` today), refusing a
 * value that is not a positive finite number under its ceiling with INVALID_AGENT naming
 * `settings.lua.<key>`. Call at agent load. Unknown keys are left to the schema.
 */
export function luaBudgetFromSettings(settings: unknown, where: { file?: string } = {}): LuaBudget | undefined {
  if (!isPlainObject(settings)) return undefined;
  const lua = settings['lua'];
  if (lua === undefined || lua === null) return undefined;
  if (!isPlainObject(lua))
    throw new AgentError('INVALID_AGENT', '`settings.lua` must be a mapping', { ...where, field: 'settings.lua' });
  const budget: LuaBudget = {};
  for (const [name, key] of Object.entries(SETTINGS_KEYS)) {
    const value = lua[name];
    if (value === undefined) continue;
    const problem = problemWith(key, value);
    const field = `settings.lua.${name}`;
    if (problem !== undefined)
      throw new AgentError('INVALID_AGENT', `\`${field}\` ${problem}`, {
        ...where,
        field,
        details: { field, ceiling: LUA_BUDGET_CEILINGS[key] },
      });
    budget[key] = Math.floor(value as number);
  }
  return budget;
}
