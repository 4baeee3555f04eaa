/**
 * What `reason.decompose` does when it runs (reason-decompose.ts has the action and its checks at
 * load): plans, solves and synthesises. Its own module, loaded on the first run, so pages and
 * workers that never decompose do not load it at start.
 */
import type { ActionContext } from '../core/action.js';
import renderDecomposePrompt from '../prompts/decompose.eta';
import renderSubProblemPrompt from '../prompts/decompose-sub-problem.eta';
import renderSynthesisPrompt from '../prompts/decompose-synthesis.eta';
import { callModel, failureResult, integerParam, llmOptions, reportedModel, rethrowControl } from './action-support.js';
import { messageOf } from '../util/message-of.js';
import { parseModelOutput } from './parse-output.js';
import { createReasoningTrace, truncateText, type ReasoningTrace } from './reasoning-trace.js';
import { textOf } from '../util/text-of.js';
import { isPlainObject } from '../util/plain-object.js';
import { MAX_SUB_PROBLEMS, MAX_SUB_PROBLEMS_PER_RUN, orderSubProblems, type SubProblem } from './sub-problems.js';

/** What the run-wide cap cut, reported when it was reached. */
interface CapReport {
  max: number;
  dropped: number;
  decompositions_skipped: number;
}

interface DecomposeRun {
  context: ActionContext;
  params: Record<string, unknown>;
  trace: ReasoningTrace;
  maxDepth: number;
  maxConcurrency: number;
  deepest: number;
  /** Sub-problems the run may still accept (starts at MAX_SUB_PROBLEMS_PER_RUN). */
  subProblemsLeft: number;
  cap: CapReport;
}

type Level =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; error: string; partial: Record<string, unknown> };

/** Runs one `reason.decompose` with its rendered parameters. */
export async function runDecompose(
  params: Record<string, unknown>,
  context: ActionContext,
): Promise<Record<string, unknown>> {
  const trace = createReasoningTrace();
  try {
    const maxDepth = integerParam(params['max_depth'], 'max_depth', 2, 0, 5);
    const maxConcurrency = integerParam(params['max_concurrency'], 'max_concurrency', 4, 1, 16);
    if (typeof maxDepth === 'string') return failureResult(maxDepth, trace.entries);
    if (typeof maxConcurrency === 'string') return failureResult(maxConcurrency, trace.entries);
    const cap: CapReport = { max: MAX_SUB_PROBLEMS_PER_RUN, dropped: 0, decompositions_skipped: 0 };
    const run: DecomposeRun = {
      context,
      params,
      trace,
      maxDepth,
      maxConcurrency,
      deepest: 0,
      subProblemsLeft: MAX_SUB_PROBLEMS_PER_RUN,
      cap,
    };
    const problem = textOf(params['problem'] ?? '');
    trace.add('decompose_start', {
      problem,
      max_depth: maxDepth,
      max_concurrency: maxConcurrency,
      model: reportedModel(context, params),
    });
    const level = await solveLevel(run, problem, 0);
    const capped =
      cap.dropped > 0 || cap.decompositions_skipped > 0 ? { sub_problem_cap: { ...cap, reached: true } } : {};
    if (!level.ok) return failureResult(level.error, trace.entries, { ...level.partial, ...capped });
    trace.add('decompose_complete', {
      sub_problems_solved: (level.result['sub_answers'] as unknown[]).length,
      depth_used: run.deepest,
    });
    return {
      ...level.result,
      reasoning_trace: trace.entries,
      reasoning_answer: level.result['final_answer'],
      depth_used: run.deepest,
      model: reportedModel(context, params),
      ...capped,
    };
  } catch (error) {
    rethrowControl(error);
    trace.add('error', { error: messageOf(error) });
    return failureResult(`Problem decomposition failed: ${messageOf(error)}`, trace.entries);
  }
}

/** Decomposes, solves and synthesises one problem at `depth`. */
async function solveLevel(run: DecomposeRun, problem: string, depth: number): Promise<Level> {
  run.deepest = Math.max(run.deepest, depth);
  const options = llmOptions(run.params);
  const decomposition = await callModel(
    run.context,
    options,
    [
      { role: 'system', content: renderDecomposePrompt({}) },
      { role: 'user', content: `Problem: ${problem}` },
    ],
    { label: 'reason.decompose', purpose: depth === 0 ? 'plan' : `plan (depth ${depth})` },
  );
  if (!decomposition.ok) return { ok: false, error: decomposition.error, partial: {} };
  const parsed = parseModelOutput(decomposition.response.content);
  if (!parsed.ok || !isPlainObject(parsed.value)) {
    return {
      ok: false,
      error: `Failed to parse decomposition: ${parsed.ok ? 'not a JSON object' : parsed.error}`,
      partial: {},
    };
  }
  const plan = parsed.value;
  const ordered = orderSubProblems(withinCap(run, plan['sub_problems'], depth));
  if (!ordered.ok) return { ok: false, error: ordered.error, partial: { sub_problems: plan['sub_problems'] ?? [] } };
  run.subProblemsLeft -= ordered.subProblems.length;
  const strategy = typeof plan['synthesis_strategy'] === 'string' ? plan['synthesis_strategy'] : 'Combine sub-answers';
  run.trace.add('decomposition', {
    depth,
    analysis: plan['analysis'] ?? '',
    sub_problem_count: ordered.subProblems.length,
    notes: ordered.notes,
  });

  const answers = await solveAll(run, problem, ordered.subProblems, depth);
  const subAnswers = ordered.subProblems.map((subProblem) => answers.get(subProblem.key)!);

  const instruction =
    typeof run.params['synthesis_prompt'] === 'string' && run.params['synthesis_prompt'] !== ''
      ? run.params['synthesis_prompt']
      : `Strategy: ${strategy}`;
  const synthesis = await callModel(
    run.context,
    options,
    [
      { role: 'system', content: renderSynthesisPrompt({ instruction }) },
      { role: 'user', content: `Problem: ${problem}\n\nSub-answers:\n${JSON.stringify(subAnswers, null, 2)}` },
    ],
    { label: 'reason.decompose', purpose: depth === 0 ? 'synthesis' : `synthesis (depth ${depth})` },
  );
  const sub_problems = ordered.subProblems.map((subProblem) => subProblem.source);
  if (!synthesis.ok) return { ok: false, error: synthesis.error, partial: { sub_problems, sub_answers: subAnswers } };
  const combined = parseModelOutput(synthesis.response.content);
  const value = combined.ok && isPlainObject(combined.value) ? combined.value : undefined;
  const finalAnswer =
    value !== undefined
      ? (value['final_answer'] ?? value['answer'] ?? synthesis.response.content)
      : combined.ok
        ? combined.value
        : synthesis.response.content;
  const reasoning = value !== undefined && value['reasoning'] !== undefined ? textOf(value['reasoning']) : '';
  const confidence = typeof value?.['confidence'] === 'number' ? value['confidence'] : 0.5;
  run.trace.add('synthesis', { depth, reasoning, final_answer: truncateText(textOf(finalAnswer), 200), confidence });
  return {
    ok: true,
    result: {
      sub_problems,
      sub_answers: subAnswers,
      final_answer: finalAnswer,
      synthesis_reasoning: reasoning,
      confidence,
      analysis: plan['analysis'] ?? '',
    },
  };
}

/**
 * The proposed list cut to what the run-wide cap still allows (the per-level cap of 20 is applied
 * by orderSubProblems). Dropping is recorded; dependencies on dropped ids are then ignored with a note.
 */
function withinCap(run: DecomposeRun, proposed: unknown, depth: number): unknown {
  if (!Array.isArray(proposed)) return proposed;
  const room = Math.max(0, run.subProblemsLeft);
  const considered = Math.min(proposed.length, MAX_SUB_PROBLEMS);
  if (considered <= room) return proposed;
  run.cap.dropped += considered - room;
  run.trace.add('sub_problem_cap_reached', {
    depth,
    proposed: proposed.length,
    kept: room,
    action: `${considered - room} sub-problems dropped`,
    max: MAX_SUB_PROBLEMS_PER_RUN,
  });
  return proposed.slice(0, room);
}

/** Solves sub-problems as their dependencies finish, at most `maxConcurrency` at a time. */
async function solveAll(
  run: DecomposeRun,
  problem: string,
  subProblems: SubProblem[],
  depth: number,
): Promise<Map<string, Record<string, unknown>>> {
  const answers = new Map<string, Record<string, unknown>>();
  const running = new Map<string, Promise<void>>();
  const waiting = [...subProblems];
  // A control-flow error (cancellation, budget) in one task stops new starts; the others are
  // awaited, so no rejection is left unhandled, and the first error is rethrown.
  let failure: { error: unknown } | undefined;
  while ((waiting.length > 0 && failure === undefined) || running.size > 0) {
    for (let index = 0; failure === undefined && index < waiting.length && running.size < run.maxConcurrency; ) {
      const subProblem = waiting[index]!;
      if (!subProblem.dependencies.every((dependency) => answers.has(dependency))) {
        index++;
        continue;
      }
      waiting.splice(index, 1);
      const task = solveOne(run, problem, subProblem, answers, depth).then(
        (answer) => {
          answers.set(subProblem.key, answer);
          running.delete(subProblem.key);
        },
        (error: unknown) => {
          failure ??= { error };
          running.delete(subProblem.key);
        },
      );
      running.set(subProblem.key, task);
    }
    if (running.size === 0) break; // unreachable: cycles are refused before solving
    await Promise.race(running.values());
  }
  if (failure !== undefined) throw failure.error;
  return answers;
}

async function solveOne(
  run: DecomposeRun,
  problem: string,
  subProblem: SubProblem,
  answers: Map<string, Record<string, unknown>>,
  depth: number,
): Promise<Record<string, unknown>> {
  const base = { id: subProblem.id, description: subProblem.description };
  const lines = subProblem.dependencies.map((dependency) => {
    const answer = answers.get(dependency)!;
    return answer['error'] !== undefined
      ? `Sub-answer ${dependency}: (failed: ${textOf(answer['error'])})`
      : `Sub-answer ${dependency}: ${textOf(answer['answer'])}`;
  });
  const context = lines.length > 0 ? `\n\nAnswers of the sub-problems this one depends on:\n${lines.join('\n')}` : '';
  const decompose = subProblem.decompose && depth < run.maxDepth;
  if (decompose && run.subProblemsLeft <= 0) {
    run.cap.decompositions_skipped++;
    run.trace.add('sub_problem_cap_reached', {
      depth,
      sub_problem: subProblem.key,
      action: 'solved directly instead of decomposed',
      max: MAX_SUB_PROBLEMS_PER_RUN,
    });
  }
  if (decompose && run.subProblemsLeft > 0) {
    const nested = await solveLevel(run, `${subProblem.description}${context}`, depth + 1);
    const entry = nested.ok
      ? {
          ...base,
          answer: nested.result['final_answer'],
          reasoning: nested.result['synthesis_reasoning'],
          confidence: nested.result['confidence'],
          decomposition: nested.result,
        }
      : { ...base, error: nested.error, answer: null };
    run.trace.add(`sub_problem_${subProblem.key}`, {
      depth,
      recursive: true,
      answer: truncateText(textOf(entry.answer), 200),
      error: 'error' in entry ? entry.error : undefined,
    });
    return entry;
  }
  const outcome = await callModel(
    run.context,
    llmOptions(run.params),
    [
      { role: 'system', content: renderSubProblemPrompt({}) },
      { role: 'user', content: `Main problem: ${problem}\n\nSub-problem: ${subProblem.description}${context}` },
    ],
    { label: 'reason.decompose', purpose: `sub-problem ${subProblem.key}` },
  );
  if (!outcome.ok) {
    run.trace.add(`sub_problem_${subProblem.key}`, {
      depth,
      description: subProblem.description,
      error: outcome.error,
    });
    return { ...base, error: outcome.error, answer: null };
  }
  const parsed = parseModelOutput(outcome.response.content);
  const value = parsed.ok && isPlainObject(parsed.value) ? parsed.value : undefined;
  const entry = {
    ...base,
    reasoning: value !== undefined && value['reasoning'] !== undefined ? textOf(value['reasoning']) : '',
    answer:
      value !== undefined
        ? (value['answer'] ?? outcome.response.content)
        : parsed.ok
          ? parsed.value
          : outcome.response.content,
    confidence: typeof value?.['confidence'] === 'number' ? value['confidence'] : 0.5,
  };
  run.trace.add(`sub_problem_${subProblem.key}`, {
    depth,
    description: subProblem.description,
    answer: truncateText(textOf(entry.answer), 200),
    confidence: entry.confidence,
  });
  return entry;
}
