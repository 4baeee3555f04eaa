/**
 * The shapes shared by the reflection actions: prepared (load-time) generator, corrector and
 * evaluator specs, the evaluator verdict, and one attempt of the loop (docs/spec.md#5-reflection-seeds-000-001-002).
 */
import type { CompiledSchema } from '../core/action.js';
import type { CompiledScript } from '../core/script-sandbox.js';
import type { CompiledValue } from '../templates/types.js';

/** One problem found with a candidate. `type` says where it came from. */
export interface ReflectionIssue {
  message: string;
  path?: string;
  dotted_path?: string;
  keyword?: string;
  /** `validation_error`, `parse_error`, `generator_error`, `corrector_error`, `evaluator_error`, `judge`, `custom`. */
  type?: string;
}

/** What every evaluator returns (docs/spec.md#52-evaluators). */
export interface Verdict {
  valid: boolean;
  /** 0..1 */
  score: number;
  errors: ReflectionIssue[];
  suggestions?: string[];
  /** Judge feedback (LLM evaluator). */
  feedback?: string;
}

/** One iteration of the loop, as kept in `reflection_history`. */
export interface Attempt {
  iteration: number;
  output: unknown;
  score: number;
  valid: boolean;
  errors: ReflectionIssue[];
  /** Where the candidate came from. */
  source: 'generator' | 'corrector';
  suggestions?: string[];
  feedback?: string;
}

/** What a step's result is for: the next candidate, or an update of the loop state. */
export type StepReturns = 'candidate' | 'state';

/** A generator or corrector, compiled at load. */
export type PreparedStep =
  | { kind: 'action'; action: string; llm: boolean; params: CompiledValue; returns?: StepReturns }
  | { kind: 'lua'; lua: CompiledScript; returns?: StepReturns };

/** An evaluator, compiled at load. */
export type PreparedEvaluator =
  | { type: 'schema'; schema: CompiledSchema; coerce: boolean }
  | {
      type: 'llm';
      prompt?: CompiledValue;
      /** True when `prompt` reads the output itself (decided from its syntax tree at load); else it is wrapped. */
      promptShowsOutput: boolean;
      examples: CompiledValue;
      llm: CompiledValue;
      label: string;
    }
  | { type: 'lua'; lua: CompiledScript; threshold: number }
  /** `custom` + `language: prolog`: the candidate passes when the rules hold (src/prolog/prolog-evaluator.ts). */
  | { type: 'prolog'; prolog: CompiledScript; threshold: number };

export type OnFailure = 'return_best' | 'return_last' | 'raise';

export type LoopStopReason = 'valid' | 'max_iterations' | 'budget';
