/**
 * StateFacts: what `state(Key, Value)` answers in one call (docs/prolog.md#state-bridge), read
 * from the globals as the goal asks: a key is converted to a term the first time it is asked for
 * and kept for the rest of the call; enumerating (`state(K, V)` with K unbound) converts each
 * value when its answer is tried. The answers are those of one fact per key, in the order of
 * `{...state, ...others}` (the state's keys, then the other globals: `output`, `iteration`, …;
 * `variables` is not one). The globals are only read.
 */
import { pl, type TauTerm } from '#prolog-vm';
import { toTerm } from './json-terms.js';

const isEnumerable = Object.prototype.propertyIsEnumerable;

export class StateFacts {
  private readonly terms = new Map<string, TauTerm>();
  private keyList: string[] | null = null;

  /**
   * @param state the run's state (its keys come first)
   * @param others the other globals (a key of both answers this value, at the state key's place)
   * @param charge told the term cells of each value converted (they live until the call ends)
   */
  constructor(
    private readonly state: Record<string, unknown>,
    private readonly others: Record<string, unknown>,
    private readonly charge: (cells: number) => void = () => {},
  ) {}

  /** The facts of a call's globals: `state`'s keys, then the others but `variables`. */
  static fromGlobals(globals: Record<string, unknown>, charge?: (cells: number) => void): StateFacts {
    const { state, variables: _variables, ...others } = globals;
    return new StateFacts(
      typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : {},
      others,
      charge,
    );
  }

  /** The term of `key`'s value, converted once per call; undefined when there is no such fact. */
  term(key: string): TauTerm | undefined {
    const known = this.terms.get(key);
    if (known !== undefined) return known;
    let value: unknown;
    if (isEnumerable.call(this.others, key)) value = this.others[key];
    else if (isEnumerable.call(this.state, key)) value = this.state[key];
    else return undefined;
    const term = toTerm(value);
    this.charge(cellCount(term));
    this.terms.set(key, term);
    return term;
  }

  /** Every key, in the facts' order. */
  keys(): readonly string[] {
    if (this.keyList !== null) return this.keyList;
    const keys = Object.keys(this.state);
    for (const key of Object.keys(this.others)) if (!isEnumerable.call(this.state, key)) keys.push(key);
    this.keyList = keys;
    return keys;
  }
}

/** Nodes of a term (a converted value: no variables, no sharing). */
function cellCount(term: TauTerm): number {
  let cells = 0;
  const pending = [term];
  while (pending.length > 0) {
    const next = pending.pop()!;
    cells += 1;
    if (pl.type.is_term(next)) for (const arg of next.args) pending.push(arg);
  }
  return cells;
}
