/**
 * The ReAct loop (docs/spec.md#63-reasonreact). Pseudo-code, with the stop reasons it can return:
 *
 *   restore the loop from resume_data, or start: [system(tools), user([UI Context] Goal)]
 *   if a tier-3 call was waiting: run it (approved) or observe "Denied by user"; finish its batch
 *   while step < max_steps:
 *     step++; call the model (native: with tool definitions)       → infrastructure failure: the node fails
 *       auto mode: HTTP 400/422 to the tool definitions, or an unreadable tool call → JSON mode, the step again
 *       native mode: an unreadable tool call (content) → a parse_error step asking to call again
 *     parse → parse_error: record the step, ask for valid JSON, continue
 *           → final: record, emit thinking/answer_chunk/answer    → final_answer
 *           → tool calls: for each, preflight (tool-dispatch.ts); a tier-3 call pauses the run
 *             (→ pause, resumed later); run; feed back "Observation: …" (or tool messages)
 *     a second call refused by the tool-call cap                    → max_tool_calls
 *   on_limit: final_answer → one tools-off call for the best answer
 *   → max_steps (warning, error event, final_answer null unless forced)
 *
 * The loop state is plain JSON so a confirmation pause can carry it in resume_data; the ids of
 * executed calls travel with it, so a resumed run never executes a call twice.
 */
import type { ActionContext, LlmCallParams } from '../../core/action.js';
import type { AgentError } from '../../core/agent-error.js';
import type { ChatMessage } from '../../core/model-provider.js';
import { appendMessages, replaceMessage } from '../../llm/resolve-llm-call.js';
import { callModel } from '../action-support.js';
import type { TraceEntry } from '../reasoning-trace.js';
import { textOf } from '../../util/text-of.js';
import { decideFromJson, decideFromNative, type ReactDecision, type RequestedCall } from './react-decision.js';
import {
  assistantToolMessage,
  EMPTY_REPLY,
  finalAnswerRequest,
  INVALID_JSON_REPLY,
  INVALID_TOOL_CALL_REPLY,
  systemPrompt,
  toolDefinitions,
  type ToolMode,
} from './react-messages.js';
import { executeCall, preflightCall, type CallOutcome, type DispatchState } from './tool-dispatch.js';
import { approverRole, type ToolTable } from './tool-table.js';
import { cutText } from '../../util/cut-text.js';

export interface ReactConfig {
  goal: string;
  maxSteps: number;
  maxToolCalls: number;
  onLimit: 'stop' | 'final_answer';
  toolMode: ToolMode;
  llm: LlmCallParams;
  table: ToolTable;
  stream: boolean;
}

export interface ReactStep {
  step: number;
  thought: string;
  action: string | null;
  action_input: unknown;
  observation: string;
  type: 'action' | 'final_answer' | 'parse_error';
  timestamp: number;
  call_id?: string;
  status?: string;
  raw?: string;
  error?: string;
}

/** Everything the loop knows; JSON, saved in resume_data at a confirmation pause. */
export interface LoopState extends DispatchState {
  mode: ToolMode;
  /** The conversation, tracked (llm/resolve-llm-call.ts): changed only by appendMessages and replaceMessage. */
  messages: ChatMessage[];
  steps: ReactStep[];
  trace: TraceEntry[];
  step: number;
  pending?: {
    calls: RequestedCall[];
    index: number;
    thought: string;
    step: number;
    /**
     * At a confirmation pause: the least role whose approval counts (the requester's, or the
     * tool's requires_role if higher), and the call it is for. A refused approval pauses again
     * for the same call and keeps it, so a viewer's resume cannot lower it.
     */
    approver?: { role: string; call: string };
  };
}

export type LoopEnd =
  | { kind: 'final'; answer: unknown; stopReason: 'final_answer' }
  | { kind: 'limit'; stopReason: 'max_steps' | 'max_tool_calls'; answer: unknown; forced: boolean }
  | { kind: 'error'; error: string; code: string }
  | { kind: 'pause'; call: RequestedCall; tool: string; args: unknown };

type StepEnd = LoopEnd | { kind: 'continue' };

/** Runs the loop from `loop` until it ends or pauses. */
export async function runReactLoop(
  config: ReactConfig,
  loop: LoopState,
  context: ActionContext,
  approval: boolean | undefined,
): Promise<LoopEnd> {
  if (loop.pending !== undefined) {
    const end = await finishBatch(config, loop, context, approval);
    if (end.kind !== 'continue') return end;
  }
  while (loop.step < config.maxSteps) {
    const end = await runStep(config, loop, context);
    if (end.kind !== 'continue') return end;
  }
  return limitReached(config, loop, context, 'max_steps');
}

async function runStep(config: ReactConfig, loop: LoopState, context: ActionContext): Promise<StepEnd> {
  loop.step++;
  const native = loop.mode !== 'json';
  const request: LlmCallParams = native
    ? { ...config.llm, tools: toolDefinitions(config.table), tool_choice: 'auto' }
    : config.llm;
  const outcome = await callModel(
    context,
    request,
    loop.messages,
    { label: 'reason.react', purpose: `ReAct step ${loop.step}` },
    config.stream,
    loop.mode === 'auto' ? refusesTools : undefined,
  );
  if (!outcome.ok) {
    // Infrastructure failures were rethrown by callModel; what is left is a refusal of the tool
    // definitions (auto mode) or a tool call the model wrote badly (content).
    const badToolCall = outcome.code === 'LLM_BAD_RESPONSE';
    if (loop.mode === 'auto' && (refusesToolsCode(outcome.code) || badToolCall)) {
      // Fall back to JSON mode and redo this step.
      switchMode(config, loop, 'json', `native tool calls refused or unreadable (${outcome.code})`);
      loop.step--;
      return { kind: 'continue' };
    }
    if (badToolCall) {
      record(loop, {
        step: loop.step,
        thought: '',
        action: null,
        action_input: null,
        observation: INVALID_TOOL_CALL_REPLY,
        type: 'parse_error',
        timestamp: 0,
        error: outcome.error,
      });
      appendMessages(loop.messages, { role: 'user', content: INVALID_TOOL_CALL_REPLY });
      return { kind: 'continue' };
    }
    return { kind: 'error', error: outcome.error, code: outcome.code };
  }
  const response = outcome.response;
  if (loop.mode === 'auto') {
    const looksJson =
      (response.tool_calls ?? []).length === 0 &&
      decideFromJson(response.content, loop.step, response.reasoning).kind === 'tools';
    switchMode(
      config,
      loop,
      looksJson ? 'json' : 'native',
      looksJson ? 'the model answered in JSON' : 'native tool calls',
    );
  }
  const decision: ReactDecision =
    loop.mode === 'json'
      ? decideFromJson(response.content, loop.step, response.reasoning)
      : decideFromNative(response, loop.step);

  if (decision.kind === 'parse_error') {
    const reply = decision.raw === '' ? EMPTY_REPLY : INVALID_JSON_REPLY;
    record(loop, {
      step: loop.step,
      thought: '',
      action: null,
      action_input: null,
      observation: reply,
      type: 'parse_error',
      timestamp: 0,
      raw: cutText(decision.raw, 500),
      error: decision.error,
    });
    appendMessages(loop.messages, { role: 'assistant', content: response.content }, { role: 'user', content: reply });
    return { kind: 'continue' };
  }
  if (decision.thought !== '') context.emit('thinking', { step: loop.step, thought: decision.thought });
  if (decision.kind === 'final') {
    record(loop, {
      step: loop.step,
      thought: decision.thought,
      action: 'final_answer',
      action_input: { answer: decision.answer },
      observation: 'Goal achieved.',
      type: 'final_answer',
      timestamp: 0,
    });
    emitAnswer(context, loop.step, decision.answer);
    return { kind: 'final', answer: decision.answer, stopReason: 'final_answer' };
  }
  appendMessages(
    loop.messages,
    loop.mode === 'json'
      ? { role: 'assistant', content: response.content }
      : assistantToolMessage(response.content ?? '', decision.calls),
  );
  loop.pending = { calls: decision.calls, index: 0, thought: decision.thought, step: loop.step };
  return finishBatch(config, loop, context, undefined);
}

/** Processes the pending batch from its index; `approval` answers a waiting tier-3 call. */
async function finishBatch(
  config: ReactConfig,
  loop: LoopState,
  context: ActionContext,
  approval: boolean | undefined,
): Promise<StepEnd> {
  const batch = loop.pending!;
  const native = loop.mode === 'native';
  for (; batch.index < batch.calls.length; batch.index++) {
    const call = batch.calls[batch.index]!;
    const checked = preflightCall(call, config.table, native, loop, context.role);
    let outcome: CallOutcome;
    if (!checked.ready) {
      outcome = checked.outcome;
    } else if (checked.tool.tier === 3 && approval === undefined) {
      if (batch.approver?.call !== call.key)
        batch.approver = { role: approverRole(context.role, checked.tool.requiresRole), call: call.key };
      return { kind: 'pause', call, tool: checked.tool.name, args: checked.args };
    } else if (checked.tool.tier === 3 && approval === false) {
      outcome = {
        status: 'user_denied',
        tool: checked.tool.name,
        arguments: checked.args,
        observation: 'Denied by user',
      };
      loop.callHistory[checked.signature] = [batch.step, outcome.observation];
    } else {
      context.emit('tool_start', {
        step: batch.step,
        tool: checked.tool.name,
        arguments: checked.args,
        call_id: call.id,
        tier: checked.tool.tier,
        autonomous: checked.tool.tier === 1,
      });
      outcome = await executeCall(context, checked.tool, checked.args, call.key, loop);
      loop.callHistory[checked.signature] = [batch.step, outcome.observation];
    }
    approval = undefined;
    context.emit('tool_result', {
      step: batch.step,
      tool: outcome.tool,
      call_id: call.id,
      status: outcome.status,
      observation: outcome.observation,
    });
    record(loop, {
      step: batch.step,
      thought: batch.index === 0 ? batch.thought : '',
      action: outcome.tool,
      action_input: outcome.arguments,
      observation: outcome.observation,
      type: 'action',
      timestamp: 0,
      call_id: call.id,
      status: outcome.status,
    });
    appendMessages(
      loop.messages,
      native
        ? { role: 'tool', tool_call_id: call.id, content: outcome.observation }
        : { role: 'user', content: `Observation: ${outcome.observation}` },
    );
  }
  loop.pending = undefined;
  if (loop.refusedAfterLimit >= 2) return limitReached(config, loop, context, 'max_tool_calls');
  return { kind: 'continue' };
}

/**
 * In auto mode, an endpoint that rejects the request because of the tool definitions (HTTP 400 or
 * 422) makes the loop retry the step in JSON mode. Every other failure is infrastructure (a 401,
 * 404 for a missing model, 429, 5xx, a timeout, a broken stream) and ends the node.
 */
function refusesTools(error: AgentError): boolean {
  return refusesToolsCode(error.code);
}

function refusesToolsCode(code: string): boolean {
  return code === 'LLM_HTTP_400' || code === 'LLM_HTTP_422';
}

async function limitReached(
  config: ReactConfig,
  loop: LoopState,
  context: ActionContext,
  stopReason: 'max_steps' | 'max_tool_calls',
): Promise<LoopEnd> {
  let answer: unknown = null;
  let forced = false;
  if (config.onLimit === 'final_answer' && config.maxSteps > 0) {
    const messages: ChatMessage[] = [...loop.messages, { role: 'user', content: finalAnswerRequest() }];
    // Tools stay declared (the history holds tool calls) but the model may not call them.
    const request: LlmCallParams =
      loop.mode === 'json' ? config.llm : { ...config.llm, tools: toolDefinitions(config.table), tool_choice: 'none' };
    const outcome = await callModel(
      context,
      request,
      messages,
      { label: 'reason.react', purpose: 'ReAct final answer (limit reached)' },
      config.stream,
    );
    if (outcome.ok) {
      const decision =
        loop.mode === 'json'
          ? decideFromJson(outcome.response.content, loop.step + 1, outcome.response.reasoning)
          : decideFromNative(outcome.response, loop.step + 1);
      const text = outcome.response.content.trim();
      if (decision.kind === 'final' || (decision.kind === 'parse_error' && text !== '')) {
        answer = decision.kind === 'final' ? decision.answer : text;
        forced = true;
        loop.trace.push({ step: 'react_forced_final_answer', timestamp: Date.now() / 1000, answer });
        emitAnswer(context, loop.step, answer);
      }
    } else {
      loop.trace.push({ step: 'react_forced_final_answer_error', timestamp: Date.now() / 1000, error: outcome.error });
    }
  }
  return { kind: 'limit', stopReason, answer, forced };
}

function switchMode(config: ReactConfig, loop: LoopState, mode: 'json' | 'native', reason: string): void {
  loop.mode = mode;
  replaceMessage(loop.messages, 0, { role: 'system', content: systemPrompt(config.table, mode) });
  loop.trace.push({ step: 'react_tool_mode', timestamp: Date.now() / 1000, mode, reason });
}

/** Appends a step; the trace gets a compact entry (the full record is in `steps`). */
function record(loop: LoopState, step: ReactStep): void {
  step.timestamp = Date.now() / 1000;
  loop.steps.push(step);
  if (loop.trace.length >= 500) return;
  const entry: TraceEntry = { step: step.step, timestamp: step.timestamp, type: step.type, action: step.action };
  if (step.status !== undefined) entry['status'] = step.status;
  if (step.call_id !== undefined) entry['call_id'] = step.call_id;
  if (step.error !== undefined) entry['error'] = step.error;
  loop.trace.push(entry);
}

function emitAnswer(context: ActionContext, step: number, answer: unknown): void {
  context.emit('answer_chunk', { step, content: textOf(answer ?? '') });
  context.emit('answer', { step, answer });
}
