/**
 * Attribute and index access for templates: own data only. `x.key` and `x['key']` read the
 * object's own keys; a missing key is undefined (so `default` fires). Built-in methods (`items`,
 * `upper`, ...) are reachable only when called, so `{{ state.items }}` on a state without `items`
 * is undefined, not a function. Nothing reaches JS prototypes: runtime objects are Maps.
 */
import {
  type RuntimeValue,
  BLOCKED_KEYS,
  isArray,
  isFunction,
  isInteger,
  isMapping,
  isNumber,
  isString,
  makeInteger,
  makeString,
  makeUndefined,
} from './jinja-runtime.js';

/** Reads `key` of `target`; `asCallee` is true when the result is about to be called. */
export function readMember(target: RuntimeValue, key: RuntimeValue, asCallee: boolean): RuntimeValue {
  if (isMapping(target)) {
    const name = isString(key) ? key.value : isNumber(key) ? String(key.value) : undefined;
    if (name === undefined || BLOCKED_KEYS.has(name)) return makeUndefined();
    const own = target.value.get(name);
    if (own !== undefined) return own;
    return target.type === 'ObjectValue' ? builtin(target, name, asCallee) : makeUndefined();
  }
  if (isArray(target) || isString(target)) {
    if (isInteger(key)) {
      if (isString(target)) {
        const character = (target.value as string).at(key.value);
        return character === undefined ? makeUndefined() : makeString(character);
      }
      return (target.value as RuntimeValue[]).at(key.value) ?? makeUndefined();
    }
    if (isString(key)) return builtin(target, key.value, asCallee);
  }
  return makeUndefined();
}

function builtin(target: RuntimeValue, name: string, asCallee: boolean): RuntimeValue {
  if (BLOCKED_KEYS.has(name)) return makeUndefined();
  const value = target.builtins.get(name);
  if (value === undefined) return makeUndefined();
  return isFunction(value) && !asCallee ? makeUndefined() : value;
}

/** Follows a dotted path (`a.b.0`) as `map(attribute=...)` and `join(attribute=...)` do. */
export function readAttributePath(target: RuntimeValue, path: string): RuntimeValue {
  let value = target;
  for (const part of path.split('.')) {
    const key = /^-?\d+$/.test(part) && isArray(value) ? Number(part) : part;
    value = readMember(value, typeof key === 'number' ? makeInteger(key) : makeString(key), false);
  }
  return value;
}
