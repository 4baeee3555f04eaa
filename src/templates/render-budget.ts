/**
 * Counted caps on one render (docs/spec.md#2-templates "Limits"): output size, loop iterations, `range()` sizes,
 * evaluation steps and call depth. Nothing is timed; a bomb fails after a bounded amount of work.
 */
import { AgentError } from '../core/agent-error.js';
import type { TemplateLimits } from './types.js';

/** The defaults: 1 MiB of output, 100,000 loop iterations, 1,000,000 steps, 64 nested calls, 16 Mi work units. */
export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  maxOutputChars: 1024 * 1024,
  maxLoopIterations: 100_000,
  maxEvaluationSteps: 1_000_000,
  maxCallDepth: 64,
  maxWorkUnits: 16 * 1024 * 1024,
});

/**
 * Work units charged for each runtime value made one per character (`'text' | list`): making a
 * value costs about as much as copying eight characters, measured on Node.
 */
export const UNITS_PER_MADE_VALUE = 8;

/** Fills in defaults and checks that every given limit is a positive integer. */
export function resolveTemplateLimits(limits: Partial<TemplateLimits> = {}): TemplateLimits {
  const resolved = { ...DEFAULT_TEMPLATE_LIMITS };
  for (const key of Object.keys(DEFAULT_TEMPLATE_LIMITS) as (keyof TemplateLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new AgentError(
        'INVALID_PARAMS',
        `template limit '${key}' must be a positive integer, got ${String(value)}`,
      );
    }
    resolved[key] = value;
  }
  return resolved;
}

export function limitError(what: string, limit: number, limitName: keyof TemplateLimits): AgentError {
  return new AgentError('TEMPLATE_LIMIT', `${what} exceeds the limit of ${limit}`, {
    details: { limit: limitName, value: limit },
  });
}

/** The counters of one render; create one per render. */
export class RenderBudget {
  readonly limits: TemplateLimits;
  #steps = 0;
  #iterations = 0;
  #rangeItems = 0;
  #outputChars = 0;
  #depth = 0;
  #work = 0;

  constructor(limits: TemplateLimits) {
    this.limits = limits;
  }

  /** One expression or statement evaluated. */
  step(): void {
    if (++this.#steps > this.limits.maxEvaluationSteps) {
      throw limitError('template evaluation steps', this.limits.maxEvaluationSteps, 'maxEvaluationSteps');
    }
  }

  /** One loop iteration (all loops of the render together). */
  iteration(): void {
    if (++this.#iterations > this.limits.maxLoopIterations) {
      throw limitError('template loop iterations', this.limits.maxLoopIterations, 'maxLoopIterations');
    }
  }

  /** A loop is about to walk `size` items: refused up front when they cannot all fit in the cap. */
  loopSource(size: number): void {
    if (this.#iterations + size > this.limits.maxLoopIterations) {
      throw limitError('template loop iterations', this.limits.maxLoopIterations, 'maxLoopIterations');
    }
  }

  /** A `range()` of `count` items is about to be built; checked before allocating. */
  rangeItems(count: number): void {
    this.#rangeItems += count;
    if (this.#rangeItems > this.limits.maxLoopIterations) {
      throw limitError('range() items in one render', this.limits.maxLoopIterations, 'maxLoopIterations');
    }
  }

  /** Characters written to the output. */
  output(chars: number): void {
    this.#outputChars += chars;
    if (this.#outputChars > this.limits.maxOutputChars) {
      throw limitError('rendered template output (characters)', this.limits.maxOutputChars, 'maxOutputChars');
    }
  }

  /** Characters the output can still take. */
  get outputLeft(): number {
    return this.limits.maxOutputChars - this.#outputChars;
  }

  /** A string or list about to be built with `size` characters or items. */
  size(size: number): void {
    if (!(size <= this.limits.maxOutputChars)) {
      throw limitError('a string or list built by the template', this.limits.maxOutputChars, 'maxOutputChars');
    }
  }

  /**
   * `units` characters or list items about to be built (or just built, when the size was not known
   * before): charged over the whole render, so many builds under the per-string cap still end.
   */
  work(units: number): void {
    this.#work += units;
    if (!(this.#work <= this.limits.maxWorkUnits)) {
      throw limitError(
        'template work (characters and list items built or scanned)',
        this.limits.maxWorkUnits,
        'maxWorkUnits',
      );
    }
  }

  /** What is left of the render's work budget. */
  get workLeft(): number {
    return this.limits.maxWorkUnits - this.#work;
  }

  enterCall(): void {
    if (++this.#depth > this.limits.maxCallDepth) {
      throw limitError('template call depth', this.limits.maxCallDepth, 'maxCallDepth');
    }
  }

  leaveCall(): void {
    this.#depth--;
  }
}
