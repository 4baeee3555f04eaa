/** The agent file as the engine sees it after parsing and checking (docs/spec.md#1-agent-files). */
import type { AgentSettings } from '../core/agent-settings.js';
import type { JsonSchema } from '../core/json-schema.js';
import type { SourcePosition } from './parse-yaml.js';

/** The graph's implicit first node: edges from it name the entry. */
export const START = '__start__';
/** The graph's implicit last node: going to it ends the run. */
export const END = '__end__';

export interface GotoRule {
  if?: string | boolean;
  to: string;
}

export interface OnErrorSpec {
  mode: 'raise' | 'graceful' | 'retry';
  maxRetries: number;
  backoffMs: number;
}

/** What a node (or a sub-step) does. */
export type NodeBody =
  | { kind: 'action'; action: string; with: Record<string, unknown>; output?: string | Record<string, unknown> }
  | { kind: 'lua'; code: string; lineOffset: number }
  /** Inline Prolog (src/prolog/): `language: prolog`, `run: {type: prolog}` or a first line `% prolog`, as in TEA. */
  | { kind: 'prolog'; code: string; lineOffset: number }
  /** Inline Python (TEA's default language): `language: python`, or a `run:` that is plainly Python. Runs only where the host gives a Python sandbox. */
  | { kind: 'python'; code: string; lineOffset: number }
  | { kind: 'steps'; steps: StepSpec[] }
  /** TEA's `run: {type: expression, value, output_key}`: the expression's native value under output_key. */
  | { kind: 'expression'; value: string | boolean | number; outputKey: string }
  | WhileLoopBody
  | DynamicParallelBody
  | { kind: 'pass' };

/** TEA's `type: while_loop` (SPEC-level notes in src/graph/while-loop.ts). */
export interface WhileLoopBody {
  kind: 'while_loop';
  condition: string | boolean;
  maxIterations: number;
  body: StepSpec[];
}

/** TEA's `type: dynamic_parallel`: one branch per item of `items` (src/graph/dynamic-parallel.ts). */
export interface DynamicParallelBody {
  kind: 'dynamic_parallel';
  /** A template (usually `"{{ state.list }}"`) or a literal list. */
  items: unknown;
  itemVar: string;
  indexVar: string;
  /** What each branch runs: `action:` (one action) or `steps:`. */
  branch: NodeBody;
  /** Where the branch body sits in the file (`action` or `steps`). */
  branchField: 'action' | 'steps';
  fanIn: string;
  maxConcurrency?: number;
  failFast: boolean;
  /** State key of the results besides `parallel_results` (TEA's docs); undefined: only `parallel_results`. */
  output?: string;
}

export interface StepSpec {
  name: string;
  body: NodeBody;
  path: Array<string | number>;
}

export interface NodeSpec {
  name: string;
  index: number;
  body: NodeBody;
  goto?: string | GotoRule[];
  interrupt?: 'before' | 'after';
  fanIn: boolean;
  onError: OnErrorSpec;
  timeoutMs?: number;
  /** Path of the node in the agent file, for positions. */
  path: Array<string | number>;
}

export interface EdgeSpec {
  from: string;
  to: string[];
  when?: string | boolean;
  /** TEA's `condition:` (string or `{type: expression, value}`); `when` is then the boolean it must give. */
  condition?: string | boolean;
  parallel: boolean;
  fanIn?: string;
  failFast: boolean;
  path: Array<string | number>;
}

export interface GraphWarning {
  message: string;
  line?: number;
  column?: number;
  node?: string;
}

export interface LimitsSpec {
  max_steps: number;
  max_llm_calls?: number;
  max_tokens?: number;
  max_duration_ms?: number;
  max_write_bytes?: number;
}

export interface AgentSpec {
  name: string;
  description?: string;
  version?: string | number;
  file: string;
  inputSchema?: JsonSchema;
  initialState: Record<string, unknown>;
  variables: Record<string, unknown>;
  schemas: Record<string, JsonSchema>;
  settings: AgentSettings;
  limits: LimitsSpec;
  nodes: NodeSpec[];
  edges: EdgeSpec[];
  interruptBefore: string[];
  interruptAfter: string[];
  raiseExceptions: boolean;
  /** Keys accepted but ignored (TEA keys with no effect in tea-edge), as warning messages for `validate`. */
  warnings: string[];
  /** Graph warnings with a place (a node nothing routes to, several plain edges from __start__); `validate --strict` makes them errors. */
  graphWarnings?: GraphWarning[];
  /** Where a path of the agent file sits in the source. */
  positionOf(path: ReadonlyArray<string | number>): SourcePosition | undefined;
  /** The line where a scalar's text starts (after `|` for block scalars); for Lua line numbers. */
  contentLineOf(path: ReadonlyArray<string | number>): number | undefined;
  /** Where the key of a mapping entry sits (unknown-key errors point at the key); optional for prebuilt specs. */
  keyPositionOf?(path: ReadonlyArray<string | number>): SourcePosition | undefined;
}
