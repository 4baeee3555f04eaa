/**
 * Types of `#prolog-vm` (build/generated/tau-prolog.js, built by build/targets/15-tau-prolog.mjs):
 * tau-prolog's core and lists modules without host access, plus the work-meter hook. Only what
 * src/prolog/ touches is typed; tau's objects stay loose (`TauTerm`). The package.json `imports`
 * entry points TypeScript here (and the package ships this file, for its own declarations).
 */
/** A tau term, variable, number or stream: read through the `pl.type.is_*` guards. */
export type TauTerm = any;
export type TauThread = any;
export type TauSession = any;
/** A built-in predicate: called with the thread, the current state and the selected goal. */
export type TauBuiltin = (thread: TauThread, point: any, atom: TauTerm) => void;
export const pl: {
  create(limit?: number): TauSession;
  /** The most general unifier of two terms (a substitution), or null. */
  unify(left: TauTerm, right: TauTerm, occursCheck: boolean): any | null;
  type: Record<string, any> & {
    Term: new (id: string, args?: TauTerm[]) => TauTerm;
    Num: new (value: number, isFloat?: boolean) => TauTerm;
    Var: new (id: string) => TauTerm;
    Stream: new (
      stream: unknown,
      mode: string,
      alias: string,
      type: string,
      reposition: boolean,
      eofAction: string,
    ) => TauTerm;
  };
  error: {
    instantiation(indicator: string): TauTerm;
    type(expected: string, found: TauTerm, indicator: string): TauTerm;
    permission(operation: string, type: string, found: TauTerm, indicator: string): TauTerm;
    existence(type: string, object: TauTerm, indicator: string): TauTerm;
    domain(domain: string, found: TauTerm, indicator: string): TauTerm;
  };
  parser: {
    tokenizer: new (thread: TauThread) => any;
    expression: (
      thread: TauThread,
      tokens: any[],
      start: number,
      priority: string | number,
      toplevel: boolean,
    ) => { type: number; value: TauTerm; len: number };
  };
  /** Directive handlers, e.g. `use_module/1`: (thread, directive term, options). */
  directive: Record<string, (thread: TauThread, atom: TauTerm, options?: Record<string, unknown>) => void>;
  modules: Record<string, { rules: Record<string, TauBuiltin | unknown[]> }>;
};
/** Installs the function every term traversal calls (null: none). */
export function setWorkMeter(meter: ((allocates: boolean) => void) | null): void;
