/**
 * `reason.react` (docs/spec.md#63-reasonreact): the action around the ReAct loop. `prepare` fixes the tool table and
 * checks the limits at load; `run` renders the parameters, starts or restores the loop, and turns
 * its end into the result, or pauses the run for a tier-3 tool (outside any try/catch, so the
 * engine's pause signal is never swallowed).
 */
import type { ActionContext, ActionDefinition } from '../../core/action.js';
import {
  checkIntegerAtLoad,
  compileParams,
  failureResult,
  integerParam,
  LLM_KEYS,
  llmOptions,
  renderParams,
  reportedModel,
  rethrowControl,
  staticParam,
  type CompiledParams,
} from '../action-support.js';
import { messageOf } from '../../util/message-of.js';
import { llmProperties } from '../../spec/parameter-shapes.js';
import { textOf } from '../../util/text-of.js';
import { isPlainObject } from '../../util/plain-object.js';
import { trackMessageHistory } from '../../llm/resolve-llm-call.js';
import { runReactLoop, type LoopEnd, type LoopState, type ReactConfig } from './react-loop.js';
import { goalMessage, systemPrompt, type ToolMode } from './react-messages.js';
import { buildToolTable, DEFAULT_ROLE, roleAllows, type ToolTable } from './tool-table.js';

const TOOL_MODES = ['json', 'native', 'auto'];
const ON_LIMIT = ['stop', 'final_answer'];
/** Upper bound on max_steps; the run budget (settings.limits) still applies on top. */
const MAX_STEPS_CAP = 10_000;

interface PreparedReact {
  params: CompiledParams;
  table: ToolTable;
}

/** The `reason.react` action. */
export function reasonReact(): ActionDefinition<PreparedReact> {
  return {
    name: 'reason.react',
    description:
      'ReAct loop: think, call a tool, observe, repeat until a final answer. Returns {steps, final_answer, reasoning_trace}.',
    parameters: {
      type: 'object',
      properties: {
        goal: { type: 'string' },
        tools: {
          type: 'array',
          items: {
            anyOf: [
              { type: 'string' },
              {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string' },
                  tier: { enum: [1, 2, 3] },
                  requires_role: { type: 'string' },
                  description: { type: 'string' },
                },
                additionalProperties: false,
              },
            ],
          },
        },
        max_steps: { type: 'integer', minimum: 0, maximum: MAX_STEPS_CAP },
        max_tool_calls: { type: 'integer', minimum: 0, maximum: MAX_STEPS_CAP * 8 },
        tool_mode: { enum: TOOL_MODES },
        on_limit: { enum: ON_LIMIT },
        ui_context: {},
        stream: { type: 'boolean' },
        ...llmProperties(LLM_KEYS),
      },
      required: ['goal'],
      additionalProperties: false,
    },
    prepare(raw, compiler) {
      const params = compileParams(raw, compiler, ['goal']);
      const tools = staticParam(params, 'tools');
      if (!tools.known)
        throw compiler.error('tools must be written in the agent file, not computed by a template', 'tools');
      const table = buildToolTable(tools.value, compiler);
      checkIntegerAtLoad(params, compiler, 'max_steps', 0, MAX_STEPS_CAP);
      checkIntegerAtLoad(params, compiler, 'max_tool_calls', 0, MAX_STEPS_CAP * 8);
      for (const [key, allowed] of [
        ['tool_mode', TOOL_MODES],
        ['on_limit', ON_LIMIT],
      ] as const) {
        const value = staticParam(params, key);
        if (value.known && value.value !== undefined && !allowed.includes(String(value.value)))
          throw compiler.error(`${key} must be one of ${allowed.join(', ')}`, key);
      }
      return { params, table };
    },
    async run(prepared, context) {
      const outcome = await runReact(prepared, context);
      if ('pause' in outcome) return context.requestConfirmation(outcome.pause);
      return outcome.result;
    },
  };
}

type ReactOutcome =
  | { result: Record<string, unknown> }
  | {
      pause: {
        tool: string;
        arguments: unknown;
        call_id: string;
        description?: string;
        resume_data: Record<string, unknown>;
      };
    };

/** What the approver is shown about an MCP tool (docs/mcp.md): its server's description (capped), else the author's. */
function approvalDescription(table: ToolTable, name: string): string | undefined {
  const tool = table.byName.get(name);
  if (tool?.mcp === undefined) return undefined;
  return tool.serverDescription || tool.description || undefined;
}

async function runReact(prepared: PreparedReact, context: ActionContext): Promise<ReactOutcome> {
  const trace: LoopState['trace'] = [];
  let loop: LoopState | undefined;
  try {
    const params = renderParams(prepared.params, context);
    // MCP tools are described by their servers when the node starts (a lazy chunk, docs/mcp.md).
    const table = prepared.table.tools.some((tool) => tool.mcp !== undefined)
      ? await (await import('./mcp-tool-table.js')).withMcpTools(prepared.table, context)
      : prepared.table;
    const config = readConfig(params, table);
    if (typeof config === 'string') return { result: failureResult(config, trace) };
    const restored = restoreLoop(context);
    loop = restored ?? startLoop(config, params, context);
    const approval = restored?.pending !== undefined ? decideApproval(restored, context) : undefined;
    if (restored !== undefined)
      loop.trace.push({ step: 'react_resume', timestamp: Date.now() / 1000, approved: approval ?? null });
    const end = await runReactLoop(config, loop, context, approval);
    if (end.kind === 'pause') {
      loop.trace.push({
        step: 'react_confirmation_request',
        timestamp: Date.now() / 1000,
        tool: end.tool,
        call_id: end.call.id,
      });
      const description = approvalDescription(config.table, end.tool);
      return {
        pause: {
          tool: end.tool,
          arguments: end.args,
          call_id: end.call.id,
          ...(description !== undefined ? { description } : {}),
          resume_data: { react: loop },
        },
      };
    }
    return { result: finish(end, loop, config, params, context) };
  } catch (error) {
    rethrowControl(error);
    const entries = loop?.trace ?? trace;
    entries.push({ step: 'error', timestamp: Date.now() / 1000, error: messageOf(error) });
    context.emit('error', { code: 'ACTION_FAILED', message: `ReAct reasoning failed: ${messageOf(error)}` });
    return { result: failureResult(`ReAct reasoning failed: ${messageOf(error)}`, entries, loop ? stepsOf(loop) : {}) };
  }
}

/**
 * The resumer's answer to the waiting tier-3 call. A denial always counts; an approval counts only
 * from a role at least the one saved at the pause (approverRole): otherwise it is recorded as
 * refused and the call waits again for someone who may approve it.
 */
function decideApproval(loop: LoopState, context: ActionContext): boolean | undefined {
  const approved = context.resume?.approval?.approved === true;
  const required = loop.pending?.approver?.role;
  const role = context.role ?? DEFAULT_ROLE;
  if (!approved || required === undefined || roleAllows(context.role, required)) {
    // Who answered, and what: the pause and its answer are part of the run's story (the studio shows them).
    const call = loop.pending?.calls[loop.pending.index];
    const tool = typeof call?.name === 'string' ? call.name : 'tool';
    context.emit('log', {
      source: 'approval',
      message: `${tool} ${approved ? 'approved' : 'denied'} by role '${role}'`,
      tool,
      call_id: call?.id ?? '',
      approved,
      role,
    });
    return approved;
  }
  loop.trace.push({ step: 'react_approval_refused', timestamp: Date.now() / 1000, role, required_role: required });
  context.emit('error', {
    code: 'FORBIDDEN',
    message: `approval refused: role '${role}' cannot approve a call that needs role '${required}'`,
  });
  return undefined;
}

function readConfig(params: Record<string, unknown>, table: ToolTable): ReactConfig | string {
  const maxSteps = integerParam(params['max_steps'], 'max_steps', 10, 0, MAX_STEPS_CAP);
  if (typeof maxSteps === 'string') return maxSteps;
  const maxToolCalls = integerParam(params['max_tool_calls'], 'max_tool_calls', maxSteps, 0, MAX_STEPS_CAP * 8);
  if (typeof maxToolCalls === 'string') return maxToolCalls;
  const toolMode = String(params['tool_mode'] ?? 'json');
  if (!TOOL_MODES.includes(toolMode)) return `tool_mode must be one of ${TOOL_MODES.join(', ')}`;
  const onLimit = String(params['on_limit'] ?? 'stop');
  if (!ON_LIMIT.includes(onLimit)) return `on_limit must be one of ${ON_LIMIT.join(', ')}`;
  return {
    goal: textOf(params['goal'] ?? ''),
    maxSteps,
    onLimit: onLimit as ReactConfig['onLimit'],
    toolMode: toolMode as ToolMode,
    llm: llmOptions(params),
    table,
    stream: params['stream'] === true,
    maxToolCalls,
  };
}

function startLoop(config: ReactConfig, params: Record<string, unknown>, context: ActionContext): LoopState {
  const loop: LoopState = {
    mode: config.toolMode,
    messages: [
      { role: 'system', content: systemPrompt(config.table, config.toolMode) },
      { role: 'user', content: goalMessage(config.goal, params['ui_context']) },
    ],
    steps: [],
    trace: [],
    step: 0,
    toolCalls: 0,
    maxToolCalls: config.maxToolCalls,
    refusedAfterLimit: 0,
    executedCallIds: {},
    callHistory: {},
  };
  loop.trace.push({
    step: 'react_start',
    timestamp: Date.now() / 1000,
    goal: config.goal,
    tools: config.table.tools.map((tool) => tool.name),
    max_steps: config.maxSteps,
    max_tool_calls: loop.maxToolCalls,
    tool_mode: config.toolMode,
    model: reportedModel(context, params),
  });
  trackMessageHistory(loop.messages);
  return loop;
}

/** The loop saved at a confirmation pause, when this node is re-run after it. */
function restoreLoop(context: ActionContext): LoopState | undefined {
  const saved = context.resume?.resume_data?.['react'];
  if (
    !isPlainObject(saved) ||
    !Array.isArray(saved['messages']) ||
    !Array.isArray(saved['steps']) ||
    typeof saved['step'] !== 'number'
  )
    return undefined;
  const loop = structuredClone(saved) as unknown as LoopState;
  if (!isPlainObject(loop.executedCallIds)) loop.executedCallIds = {};
  if (!isPlainObject(loop.callHistory)) loop.callHistory = {};
  if (!Array.isArray(loop.trace)) loop.trace = [];
  trackMessageHistory(loop.messages);
  return loop;
}

function stepsOf(loop: LoopState): Record<string, unknown> {
  return { steps: loop.steps, react_steps: loop.steps, total_steps: loop.step, tool_calls: loop.toolCalls };
}

function finish(
  end: Exclude<LoopEnd, { kind: 'pause' }>,
  loop: LoopState,
  config: ReactConfig,
  params: Record<string, unknown>,
  context: ActionContext,
): Record<string, unknown> {
  const model = reportedModel(context, params);
  const base = { ...stepsOf(loop), reasoning_trace: loop.trace, model, tool_mode: loop.mode };
  if (end.kind === 'error') {
    loop.trace.push({ step: 'error', timestamp: Date.now() / 1000, error: end.error });
    context.emit('error', { code: end.code, message: end.error });
    return failureResult(end.error, loop.trace, { ...base, stop_reason: 'error', final_answer: null });
  }
  if (end.kind === 'final') {
    loop.trace.push({
      step: 'react_complete',
      timestamp: Date.now() / 1000,
      total_steps: loop.step,
      final_answer: end.answer,
    });
    return { ...base, final_answer: end.answer, reasoning_answer: end.answer, stop_reason: 'final_answer' };
  }
  const warning =
    end.stopReason === 'max_steps'
      ? `Max steps (${config.maxSteps}) reached without achieving goal`
      : `Tool call limit (${loop.maxToolCalls}) reached and the model kept calling tools`;
  loop.trace.push({
    step: 'react_max_steps',
    timestamp: Date.now() / 1000,
    total_steps: loop.step,
    warning,
    stop_reason: end.stopReason,
  });
  context.emit('error', { code: 'BUDGET_EXCEEDED', message: warning, stop_reason: end.stopReason });
  return {
    ...base,
    final_answer: end.answer,
    reasoning_answer: end.answer,
    stop_reason: end.stopReason,
    warning,
    ...(end.forced ? { forced_final_answer: true } : {}),
  };
}
