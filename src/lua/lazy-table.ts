/**
 * Lazy tables: how a call's globals (`state`, `variables`, an evaluator's `output`…) enter Lua
 * without converting what the script never reads (src/lua/README.md#json--lua).
 *
 * A JSON object or array becomes a real fengari table that starts empty and holds `lazy`, a
 * `LazyTable` pointing at the JavaScript value. The patched VM (build/fengari-transform.mjs,
 * "lazy table" edits) asks it at the only places entries are reached:
 *   - a raw read of a missing key (`fetch`): the entry is converted now, kept in the table for the
 *     rest of the call; a nested object or array becomes another lazy table;
 *   - a raw write (`write`): the key is settled, so a later read never brings back the old value;
 *   - `next` (pairs, rawlen-free traversals, json.encode, the result) and the length (`#`,
 *     `rawlen`, the table library) (`complete`/`length`): the rest is converted and the entries
 *     put in the order an eager conversion gives (the value's key order, then keys the script
 *     added), and the table becomes an ordinary one.
 * So every Lua operation sees what it saw when globals were converted eagerly: same values, same
 * `pairs` order, same length, same metatable (`json.array` for arrays), and writes stay in Lua.
 * Only JSON values are converted (anything else is refused as before); each global's conversion
 * is capped at MAX_JSON_VALUES_IN values and MAX_JSON_DEPTH levels, as the eager one was.
 * What is converted while the script runs is charged to its budgets: a table 4 slots and an
 * entry 1 (`table_growth`, by the VM's own hooks), a string or key its bytes (`string_bytes`).
 */
import type { LuaState, VmEntry, VmLazyHooks, VmTable, VmValue } from '#lua-vm';
import { lazyTables as vm } from '#lua-vm';
import { formatValuePath } from './error-text.js';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES_IN } from './json-bridge.js';

/** A global could not be converted into Lua (a non-JSON value, too deep, too many values). */
export class LazyConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LazyConversionError';
  }
}

/** What the lazy tables of one VM share: where values are made and how strings become bytes. */
export interface LazyContext {
  /** The VM's main thread (tables and strings are made for it). */
  readonly state: LuaState;
  readonly nullSentinel: object;
  /** The `json.array` metatable (a fengari table). */
  readonly arrayMetatable: VmTable;
  /** UTF-8 bytes of a JavaScript string (lone surrogates as U+FFFD), as the eager conversion made them. */
  bytesOf(text: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

/** The values left to convert for one global (shared by all its tables). */
interface Allowance {
  remaining: number;
}

type Hash = string | number;
const isEnumerable = Object.prototype.propertyIsEnumerable;
const PIPE = 124;

/** Converts a JSON value into a VM value: scalars now, objects and arrays as lazy tables. */
export function toVmValue(context: LazyContext, value: unknown, name: string): VmValue {
  return convert(context, value, 0, [name], { remaining: MAX_JSON_VALUES_IN });
}

function convert(
  context: LazyContext,
  value: unknown,
  depth: number,
  path: readonly (string | number)[],
  allowance: Allowance,
): VmValue {
  if (--allowance.remaining < 0)
    throw new LazyConversionError(`more than ${MAX_JSON_VALUES_IN} values to convert (at ${formatValuePath(path)})`);
  if (value === null || value === undefined) return vm.lightUserdata(context.nullSentinel);
  switch (typeof value) {
    case 'boolean':
      return vm.boolean(value);
    case 'number':
      if (Number.isInteger(value) && value >= -2147483648 && value <= 2147483647 && !Object.is(value, -0))
        return vm.integer(value);
      return vm.float(value);
    case 'string':
      return makeString(context, context.bytesOf(value));
    case 'object':
      break;
    default:
      throw new LazyConversionError(`cannot pass a JavaScript ${typeof value} to Lua (at ${formatValuePath(path)})`);
  }
  if (depth >= MAX_JSON_DEPTH)
    throw new LazyConversionError(`value nested deeper than ${MAX_JSON_DEPTH} levels (at ${formatValuePath(path)})`);
  if (Array.isArray(value))
    return vm.table(context.state, new LazyTable(context, value, depth, path, allowance), context.arrayMetatable);
  const json: unknown = 'toJSON' in value && typeof value.toJSON === 'function' ? value.toJSON() : value;
  if (json !== value) return convert(context, json, depth, path, allowance);
  return vm.table(
    context.state,
    new LazyTable(context, value as Record<string, unknown>, depth, path, allowance),
    null,
  );
}

/** A Lua string made from a copy of `bytes`, charged to the running call's string budget. */
function makeString(context: LazyContext, bytes: Uint8Array): VmValue {
  const meter = context.state.l_G.teaBudget;
  if (meter?.armed) meter.countConversion(null, bytes.length);
  return vm.string(context.state, bytes);
}

/** The table key (`luaS_hash`, as patched: '|' and one character per byte) of a string's bytes. */
function stringHash(text: string, bytes: Uint8Array): string {
  if (bytes.length === text.length) return `|${text}`; // ASCII: one byte per character
  let hash = '|';
  for (let start = 0; start < bytes.length; start += 8192)
    hash += String.fromCharCode.apply(null, Array.from(bytes.subarray(start, start + 8192)));
  return hash;
}

function isAscii(text: string, from: number): boolean {
  for (let index = from; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

/** The `lazy` field of one fengari table: the JSON value its entries still come from. */
export class LazyTable implements VmLazyHooks {
  /** Keys read or written: never converted (again). */
  private settled: Set<Hash> | null = null;
  /** Settled keys whose entry stands where the eager conversion put it (not deleted since). */
  private positioned: Set<Hash> | null = null;
  /** Set by any write: the length is no longer the value's. */
  private dirty = false;
  /** Lua key → JavaScript key, built only for keys that do not read back as themselves. */
  private index: Map<string, string> | null = null;

  constructor(
    private readonly context: LazyContext,
    private readonly source: Record<string, unknown> | unknown[],
    private readonly depth: number,
    private readonly path: readonly (string | number)[],
    private readonly allowance: Allowance,
  ) {}

  /** A raw read of a missing key: converts that entry if the value has it. */
  fetch(table: VmTable, hash: Hash): VmEntry | undefined {
    if (this.settled?.has(hash) === true) return undefined;
    const key = this.sourceKey(hash);
    if (key === undefined) return undefined;
    this.settle(hash, true);
    return this.insert(table, hash, key);
  }

  /** A raw write: the key is settled (a nil write deletes it: it no longer stands in its place). */
  write(_table: VmTable, hash: Hash, isNil: boolean): void {
    this.dirty = true;
    if (this.settled?.has(hash) === true) {
      if (isNil) this.positioned?.delete(hash);
      return;
    }
    if (this.sourceKey(hash) !== undefined) this.settle(hash, !isNil);
  }

  /** The length when the value's own is still right, else completes the table and returns -1. */
  length(table: VmTable): number {
    if (!this.dirty) return Array.isArray(this.source) ? this.source.length : 0; // an object's keys are all strings
    this.complete(table);
    return -1;
  }

  /** Converts every entry not yet settled and orders the table as the eager conversion would. */
  complete(table: VmTable): void {
    table.lazy = undefined;
    const ordered: VmEntry[] = [];
    if (Array.isArray(this.source)) {
      for (let position = 1; position <= this.source.length; position++) {
        const entry =
          this.settled?.has(position) === true
            ? this.placed(table, position)
            : this.insert(table, position, position - 1);
        if (entry !== undefined) ordered.push(entry);
      }
    } else {
      // Two JavaScript keys can be one Lua key (lone surrogates read as U+FFFD): the first one's
      // place, the last one's value, as successive assignments give.
      // The entry made here for each Lua key met (null: settled before, left as the script has it).
      const met = new Map<string, VmEntry | null>();
      for (const key of Object.keys(this.source)) {
        if (this.source[key] === undefined) continue;
        const bytes = this.context.bytesOf(key);
        const hash = stringHash(key, bytes);
        if (met.has(hash)) {
          const earlier = met.get(hash);
          if (earlier) earlier.value = this.valueOf(key);
          continue;
        }
        if (this.settled?.has(hash) === true) {
          met.set(hash, null);
          const entry = this.placed(table, hash);
          if (entry !== undefined) ordered.push(entry);
          continue;
        }
        const entry = vm.insert(table, hash, makeString(this.context, bytes), this.valueOf(key));
        met.set(hash, entry);
        ordered.push(entry);
      }
    }
    vm.moveToFront(table, ordered);
  }

  private settle(hash: Hash, present: boolean): void {
    (this.settled ??= new Set()).add(hash);
    if (present) (this.positioned ??= new Set()).add(hash);
  }

  /** The entry of a settled key if it still stands in its original place. */
  private placed(table: VmTable, hash: Hash): VmEntry | undefined {
    return this.positioned?.has(hash) === true ? table.strong.get(hash) : undefined;
  }

  /** Converts the value at `key` (an array position or object key) and adds its entry. */
  private insert(table: VmTable, hash: Hash, key: string | number): VmEntry {
    const keyValue =
      typeof hash === 'number' ? vm.integer(hash) : makeString(this.context, this.context.bytesOf(key as string));
    return vm.insert(table, hash, keyValue, this.valueOf(key));
  }

  private valueOf(key: string | number): VmValue {
    const item = Array.isArray(this.source) ? this.source[key as number] : this.source[key as string];
    const path = [...this.path, key];
    return convert(this.context, item === undefined ? null : item, this.depth + 1, path, this.allowance);
  }

  /** The array position or object key a Lua table key stands for, if the value has it. */
  private sourceKey(hash: Hash): string | number | undefined {
    if (Array.isArray(this.source)) {
      return typeof hash === 'number' && Number.isInteger(hash) && hash >= 1 && hash <= this.source.length
        ? hash - 1
        : undefined;
    }
    // Other string-like hashes ('*', '#', '?') are light userdata keys.
    if (typeof hash !== 'string' || hash.charCodeAt(0) !== PIPE) return undefined;
    let key = hash.slice(1);
    if (!isAscii(hash, 1)) {
      key = this.context.decode(Uint8Array.from(key, (character) => character.charCodeAt(0)));
      // Invalid UTF-8, or a key that has U+FFFD (which lone surrogates also become): look it up by bytes.
      if (key.includes('\uFFFD')) return this.indexed().get(hash);
    }
    return this.has(key) ? key : undefined;
  }

  private has(key: string): boolean {
    const source = this.source as Record<string, unknown>;
    return isEnumerable.call(source, key) && source[key] !== undefined;
  }

  private indexed(): Map<string, string> {
    if (this.index !== null) return this.index;
    this.index = new Map();
    for (const key of Object.keys(this.source)) {
      if ((this.source as Record<string, unknown>)[key] !== undefined)
        this.index.set(stringHash(key, this.context.bytesOf(key)), key);
    }
    return this.index;
  }
}
