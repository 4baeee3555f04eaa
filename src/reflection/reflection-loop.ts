/**
 * reflectionLoop: generate → evaluate → correct, at most `maxIterations` times (docs/spec.md#51-reflectionloop).
 *
 *   for iteration = first..max:                 (a plain local counter: the hard cap)
 *     candidate ← pending corrector candidate, else run the generator
 *       generator throws → attempt {generator_error}; next iteration (no evaluation, no corrector)
 *       (an infrastructure failure in the generator, judge or corrector is never an attempt: it
 *       propagates and ends the node, see control-flow.ts)
 *     candidate ← extract (LLM content, JSON parse) → failure: attempt {parse_error}
 *     verdict ← evaluate(candidate)
 *     history += attempt; emit reflection_attempt; best ← strictly higher score (earliest tie)
 *     valid → stop 'valid'
 *     iteration < max and corrector → run it:
 *       action (or returns: candidate) → its result is the next candidate
 *       Lua (or returns: state) → merged into the loop state; `reflection_output` in it → candidate
 *       throws → corrector_error appended to this attempt's errors; the generator runs next
 *   stop 'max_iterations' → on_failure: return_best | return_last | raise (REFLECTION_FAILED)
 *
 * Control flow is never recorded as an attempt: cancellation, a confirmation pause and every
 * infrastructure failure (model server down, HTTP error, timeout, broken stream, replay
 * mismatch, storage) propagate as they are; BUDGET_EXCEEDED is rethrown with the loop's result (stop_reason `budget`) in
 * `details.reflection`, because the engine ends the run on any exhausted budget (docs/spec.md#11-top-level-keys).
 * With `continueFromState`, the loop picks up `state.reflection_history` left by an earlier loop
 * node (e.g. across an interrupt and resume) and counts those attempts against the cap.
 */
import type { ActionContext, State } from '../core/action.js';
import type { ReflectionAttemptData } from '../core/events.js';
import { AgentError } from '../core/agent-error.js';
import { mergeShallow } from '../util/safe-json.js';
import { describeFailure, isControlFlow } from './control-flow.js';
import { evaluate } from './evaluators/evaluate.js';
import { extractCandidate } from './extract-candidate.js';
import { buildLoopResult, isGeneratorFailure, pickBest } from './loop-result.js';
import type {
  Attempt,
  LoopStopReason,
  OnFailure,
  PreparedEvaluator,
  PreparedStep,
  ReflectionIssue,
} from './reflection-types.js';
import { restoreHistory } from './restore-history.js';
import { runStep } from './run-step.js';
import { isPlainObject } from '../util/plain-object.js';

export interface LoopParams {
  generator: PreparedStep;
  evaluator: PreparedEvaluator;
  corrector?: PreparedStep;
  maxIterations: number;
  onFailure: OnFailure;
  continueFromState: boolean;
}

interface Candidate {
  value: unknown;
  fromLlm: boolean;
}

export async function reflectionLoop(params: LoopParams, context: ActionContext): Promise<Record<string, unknown>> {
  const loopState: State = { ...context.state };
  const history: Attempt[] = params.continueFromState ? restoreHistory(context.state.reflection_history) : [];
  let feedback =
    params.continueFromState && typeof context.state.reflection_feedback === 'string'
      ? context.state.reflection_feedback
      : undefined;
  let pending: Candidate | undefined;
  let stopReason: LoopStopReason = 'max_iterations';
  const progress = new Progress(loopState, history);
  progress.sync(feedback);

  try {
    const last = history[history.length - 1];
    if (last?.valid === true) stopReason = 'valid';
    else if (
      last !== undefined &&
      !isGeneratorFailure(last) &&
      history.length < params.maxIterations &&
      params.corrector !== undefined
    ) {
      pending = await correct(params.corrector, context, progress, last.iteration);
    }
    for (
      let iteration = history.length + 1;
      stopReason !== 'valid' && iteration <= params.maxIterations;
      iteration += 1
    ) {
      if (context.signal.aborted) throw new AgentError('CANCELLED', 'the run was cancelled', { node: context.node });
      loopState.reflection_iteration = iteration;
      const candidate = pending;
      pending = undefined;
      const attempt = await attemptOnce(params, context, loopState, iteration, candidate);
      if (attempt.feedback !== undefined) feedback = attempt.feedback;
      progress.add(attempt, feedback);
      context.emit('reflection_attempt', attemptEvent(attempt, params.maxIterations));
      if (attempt.valid) stopReason = 'valid';
      else if (!isGeneratorFailure(attempt) && iteration < params.maxIterations && params.corrector !== undefined) {
        pending = await correct(params.corrector, context, progress, iteration);
      }
    }
  } catch (error) {
    if (AgentError.isInstance(error) && error.code === 'BUDGET_EXCEEDED') {
      const partial = buildLoopResult({ history, stopReason: 'budget', onFailure: params.onFailure, feedback });
      throw new AgentError('BUDGET_EXCEEDED', error.message, {
        node: context.node,
        details: { ...error.details, reflection: partial },
        cause: error,
      });
    }
    throw error;
  }

  const result = buildLoopResult({ history, stopReason, onFailure: params.onFailure, feedback });
  if (stopReason !== 'valid' && params.onFailure === 'raise') {
    throw new AgentError(
      'REFLECTION_FAILED',
      `reflection loop failed after ${history.length} iterations (best score ${String(result.reflection_best_score)})`,
      {
        node: context.node,
        details: {
          iterations: history.length,
          history,
          best: result.reflection_best,
          best_score: result.reflection_best_score,
          last_errors: result.reflection_errors,
        },
      },
    );
  }
  return result;
}

/** Obtains one candidate (pending corrector output, else the generator) and evaluates it. */
async function attemptOnce(
  params: LoopParams,
  context: ActionContext,
  loopState: State,
  iteration: number,
  pending: Candidate | undefined,
): Promise<Attempt> {
  let candidate = pending;
  const source = pending === undefined ? 'generator' : 'corrector';
  if (candidate === undefined) {
    try {
      const value = await runStep(params.generator, context, loopState, iteration, 'generator', (rendered) => {
        if (typeof rendered.prompt === 'string') loopState.reflection_task = rendered.prompt;
      });
      candidate = { value, fromLlm: params.generator.kind === 'action' && params.generator.llm };
    } catch (error) {
      if (isControlFlow(error, context.signal)) throw error;
      return {
        iteration,
        output: null,
        score: 0,
        valid: false,
        errors: [{ message: `Generator failed: ${describeFailure(error)}`, type: 'generator_error' }],
        source,
      };
    }
  }
  const evaluator = params.evaluator;
  const extracted = extractCandidate(candidate.value, {
    fromLlm: candidate.fromLlm,
    expectJson: evaluator.type === 'schema',
    ...(evaluator.type === 'schema' ? { acceptsText: (text: string) => acceptsText(evaluator, text) } : {}),
  });
  if (!extracted.ok) {
    return {
      iteration,
      output: extracted.raw,
      score: 0,
      valid: false,
      errors: [{ message: `Could not parse JSON from the ${source} output: ${extracted.error}`, type: 'parse_error' }],
      source,
    };
  }
  const verdict = await evaluate(evaluator, extracted.value, context, loopState, iteration);
  const attempt: Attempt = {
    iteration,
    output: extracted.value,
    score: verdict.score,
    valid: verdict.valid,
    errors: verdict.errors,
    source,
  };
  if (verdict.suggestions !== undefined && verdict.suggestions.length > 0) attempt.suggestions = verdict.suggestions;
  if (verdict.feedback !== undefined) attempt.feedback = verdict.feedback;
  return attempt;
}

/**
 * Runs the corrector after a failed attempt. Returns the next candidate, or undefined when the
 * generator should run again. A failure is appended to the attempt's errors (a new entry object,
 * so nothing shared is mutated).
 */
async function correct(
  corrector: PreparedStep,
  context: ActionContext,
  progress: Progress,
  iteration: number,
): Promise<Candidate | undefined> {
  const loopState = progress.loopState;
  let raw: unknown;
  try {
    raw = await runStep(corrector, context, loopState, iteration, 'corrector');
  } catch (error) {
    if (isControlFlow(error, context.signal)) throw error;
    progress.addErrorToLast({ message: `Corrector failed: ${describeFailure(error)}`, type: 'corrector_error' });
    return undefined;
  }
  const returns = corrector.returns ?? (corrector.kind === 'action' ? 'candidate' : 'state');
  if (returns === 'candidate') return { value: raw, fromLlm: corrector.kind === 'action' && corrector.llm };
  if (!isPlainObject(raw)) return undefined;
  const update = raw as Record<string, unknown>;
  const { reflection_output: next, ...rest } = update;
  mergeShallow(loopState, rest);
  return Object.hasOwn(update, 'reflection_output') ? { value: next, fromLlm: false } : undefined;
}

/**
 * The history with its best and last evaluated attempts kept up to date as attempts arrive (so a
 * long loop does not rescan its history every iteration), mirrored into the loop state variables
 * the steps and templates read.
 */
class Progress {
  private best: Attempt | undefined;
  private lastEvaluated: Attempt | undefined;

  constructor(
    readonly loopState: State,
    readonly history: Attempt[],
  ) {
    this.best = pickBest(history);
    this.lastEvaluated = [...history].reverse().find((attempt) => !isGeneratorFailure(attempt));
  }

  add(attempt: Attempt, feedback: string | undefined): void {
    this.history.push(attempt);
    if (!isGeneratorFailure(attempt)) {
      this.lastEvaluated = attempt;
      if (this.best === undefined || attempt.score > this.best.score) this.best = attempt;
    }
    this.sync(feedback);
  }

  /** Appends an error to the latest attempt as a new entry object (nothing shared is mutated). */
  addErrorToLast(issue: ReflectionIssue): void {
    const index = this.history.length - 1;
    const last = this.history[index]!;
    const replaced = { ...last, errors: [...last.errors, issue] };
    this.history[index] = replaced;
    if (this.best === last) this.best = replaced;
    if (this.lastEvaluated === last) this.lastEvaluated = replaced;
    const feedback = this.loopState.reflection_feedback;
    this.sync(typeof feedback === 'string' ? feedback : undefined);
  }

  sync(feedback: string | undefined): void {
    const state = this.loopState;
    const last = this.history[this.history.length - 1];
    state.reflection_iteration = last?.iteration ?? 0;
    state.reflection_output = this.lastEvaluated?.output ?? null;
    state.reflection_errors = last?.errors ?? [];
    state.reflection_history = this.history;
    state.reflection_best = this.best?.output ?? null;
    state.reflection_best_score = this.best?.score ?? -1;
    state.reflection_feedback = feedback ?? null;
  }
}

function acceptsText(evaluator: PreparedEvaluator & { type: 'schema' }, text: string): boolean {
  try {
    return evaluator.schema.validate(text, { coerce: false }).valid;
  } catch {
    return false;
  }
}

function attemptEvent(attempt: Attempt, maxIterations: number): ReflectionAttemptData {
  return {
    iteration: attempt.iteration,
    max_iterations: maxIterations,
    score: attempt.score,
    valid: attempt.valid,
    error_count: attempt.errors.length,
    errors: attempt.errors.slice(0, 10).map((error) => ({
      message: error.message,
      ...(error.path !== undefined ? { path: error.path } : {}),
      ...(error.type !== undefined ? { type: error.type } : {}),
    })),
    source: attempt.source,
  };
}
