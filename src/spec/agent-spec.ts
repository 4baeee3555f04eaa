/** The agent file as the engine sees it after parsing and checking (SPEC §1). */
import type { JsonSchema } from '../core/json-schema.js';
import type { SourcePosition } from './parse-yaml.js';

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
  | { kind: 'steps'; steps: StepSpec[] }
  | { kind: 'pass' };

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
  parallel: boolean;
  fanIn?: string;
  failFast: boolean;
  path: Array<string | number>;
}

export interface LimitsSpec {
  max_steps: number;
  max_llm_calls?: number;
  max_tokens?: number;
  max_duration_ms?: number;
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
  settings: Record<string, unknown>;
  limits: LimitsSpec;
  nodes: NodeSpec[];
  edges: EdgeSpec[];
  interruptBefore: string[];
  interruptAfter: string[];
  raiseExceptions: boolean;
  /** Keys accepted but ignored (TEA keys with no effect in tea-edge), as warning messages for `validate`. */
  warnings: string[];
  /** Where a path of the agent file sits in the source. */
  positionOf(path: ReadonlyArray<string | number>): SourcePosition | undefined;
  /** The line where a scalar's text starts (after `|` for block scalars); for Lua line numbers. */
  contentLineOf(path: ReadonlyArray<string | number>): number | undefined;
  /** Where the key of a mapping entry sits (unknown-key errors point at the key); optional for prebuilt specs. */
  keyPositionOf?(path: ReadonlyArray<string | number>): SourcePosition | undefined;
}
