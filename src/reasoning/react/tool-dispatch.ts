/**
 * Decides and runs one tool call of a ReAct step. In order: the name must be in the node's tool
 * table (exact match), the call id must not have run before, the caller's role must reach
 * `requires_role`, the arguments must parse, fit the size cap and match the tool's JSON Schema,
 * the call must not repeat an earlier identical one, the tool-call budget must remain, and a
 * tier-3 tool must be approved. Only then does the tool run. Every refusal is an observation.
 */
import type { ToolCallStatus } from '../../core/events.js';
import type { ActionContext } from '../../core/action.js';
import { rethrowControl } from '../action-support.js';
import { messageOf } from '../../util/message-of.js';
import { truncateText } from '../reasoning-trace.js';
import { textOf } from '../../util/text-of.js';
import { isPlainObject } from '../../util/plain-object.js';
import { parseJsonSafely } from '../../util/untrusted-json.js';
import type { RequestedCall } from './react-decision.js';
import { roleAllows, type ReactTool, type ToolTable } from './tool-table.js';
import { cutText } from '../../util/cut-text.js';

/** Caps on what crosses the tool boundary. */
export const TOOL_LIMITS = { maxArgumentChars: 16 * 1024, maxObservationChars: 8000 } as const;

/** How a tool call ended (the `status` of its `tool_result` event). */
export type CallStatus = ToolCallStatus;

export interface CallOutcome {
  status: CallStatus;
  tool: string;
  arguments: unknown;
  observation: string;
}

/** What the dispatcher needs from the loop (all of it survives a confirmation pause). */
export interface DispatchState {
  toolCalls: number;
  maxToolCalls: number;
  refusedAfterLimit: number;
  /** Ids of calls that ran (an object, not a list: O(1) checks, and JSON for resume_data). */
  executedCallIds: Record<string, true>;
  /** Signature (name + canonical arguments) → [step, observation] of earlier calls. */
  callHistory: Record<string, [number, string]>;
}

export type Preflight =
  | { ready: true; tool: ReactTool; args: Record<string, unknown>; signature: string }
  | { ready: false; outcome: CallOutcome };

/** Every check short of approval and execution. */
export function preflightCall(
  call: RequestedCall,
  table: ToolTable,
  native: boolean,
  state: DispatchState,
  role: string | undefined,
): Preflight {
  const shownName = cutText(typeof call.name === 'string' ? call.name : textOf(call.name), 80);
  // Exact lookups only. Native mode also takes the dotted name (a JSON action in the content).
  const tool =
    typeof call.name === 'string'
      ? native
        ? (table.byWireName.get(call.name) ?? table.byName.get(call.name))
        : table.byName.get(call.name)
      : undefined;
  const refuse = (status: CallStatus, observation: string, args: unknown = call.arguments): Preflight => ({
    ready: false,
    outcome: { status, tool: tool?.name ?? shownName, arguments: args, observation },
  });
  if (tool === undefined) {
    const available = [...table.tools.map((entry) => (native ? entry.wireName : entry.name)), 'final_answer'];
    return refuse('unknown', `Unknown action: ${shownName}. Available: ${JSON.stringify(available)}`, null);
  }
  if (Object.hasOwn(state.executedCallIds, call.key))
    return refuse('duplicate_id', `Call ${call.id} was already executed; it will not run again.`);
  if (!roleAllows(role, tool.requiresRole))
    return refuse('denied', `Access denied: ${tool.name} requires role ${tool.requiresRole}`);
  const args = readArguments(call, tool);
  if (typeof args === 'string') return refuse('invalid', `Invalid arguments for ${tool.name}: ${args}`);
  if (tool.schema !== undefined) {
    const verdict = tool.schema.validate(args);
    if (!verdict.valid) {
      const problems = verdict.errors
        .slice(0, 5)
        .map((error) => `${error.path || '/'}: ${error.message}`)
        .join('; ');
      return refuse(
        'invalid',
        `Invalid arguments for ${tool.name}: ${problems}. The tool did not run; send arguments matching its parameters.`,
        args,
      );
    }
  }
  const signature = `${tool.name} ${canonicalJson(args)}`;
  const earlier = state.callHistory[signature];
  if (earlier !== undefined) {
    return refuse(
      'repeated',
      `Repeated call: ${tool.name} was already called with these arguments at step ${earlier[0]} and returned: ${cutText(earlier[1], 500)}. Do not repeat it; use that result or give the final answer.`,
      args,
    );
  }
  if (state.toolCalls >= state.maxToolCalls) {
    state.refusedAfterLimit++;
    return refuse(
      'limit',
      `Tool call limit (${state.maxToolCalls}) reached: no more tools will run. Give your final answer now with final_answer.`,
      args,
    );
  }
  return { ready: true, tool, args, signature };
}

/** Runs an approved, checked call through the registry; a failure is an observation. */
export async function executeCall(
  context: ActionContext,
  tool: ReactTool,
  args: Record<string, unknown>,
  callKey: string,
  state: DispatchState,
): Promise<CallOutcome> {
  state.toolCalls++;
  state.executedCallIds[callKey] = true;
  try {
    const result =
      tool.mcp !== undefined
        ? await (await import('./mcp-tool-table.js')).callMcpTableTool({ ...tool, mcp: tool.mcp }, args, context)
        : await context.callAction(tool.name, args);
    return {
      status: 'ok',
      tool: tool.name,
      arguments: args,
      observation: truncateText(textOf(result ?? null), TOOL_LIMITS.maxObservationChars),
    };
  } catch (error) {
    // A tool that itself asks for confirmation fails with ACTION_FAILED (context.callAction):
    // an observation like any other tool failure.
    rethrowControl(error);
    return {
      status: 'error',
      tool: tool.name,
      arguments: args,
      observation: truncateText(`Error executing ${tool.name}: ${messageOf(error)}`, TOOL_LIMITS.maxObservationChars),
    };
  }
}

/** The call's arguments as an object, or why they are not usable. */
function readArguments(call: RequestedCall, tool: ReactTool): Record<string, unknown> | string {
  let value = call.arguments;
  if (call.argumentsAreText) {
    const text = typeof value === 'string' ? value : '';
    if (text.length > TOOL_LIMITS.maxArgumentChars)
      return `arguments too large (${text.length} characters; limit ${TOOL_LIMITS.maxArgumentChars})`;
    if (text.trim() === '') return {};
    const parsed = parseJsonSafely(text);
    if (!parsed.ok) return `arguments are not valid JSON (${parsed.error})`;
    value = parsed.value;
  } else {
    const size = textOf(value).length;
    if (size > TOOL_LIMITS.maxArgumentChars)
      return `arguments too large (${size} characters; limit ${TOOL_LIMITS.maxArgumentChars})`;
  }
  if (value === null || value === undefined) return {};
  // Small models often write the arguments as a JSON string: "action_input": "{\"q\": 1}".
  if (typeof value === 'string' && /^\s*\{/.test(value)) {
    const parsed = parseJsonSafely(value);
    if (parsed.ok && isPlainObject(parsed.value)) value = parsed.value;
  }
  if (isPlainObject(value)) return value;
  // A bare value for a tool with one required parameter: {"action_input": "2 + 2"} → {expression: "2 + 2"}.
  const required = Array.isArray(tool.parameters['required']) ? (tool.parameters['required'] as unknown[]) : [];
  if (
    required.length === 1 &&
    typeof required[0] === 'string' &&
    (typeof value === 'string' || typeof value === 'number')
  )
    return { [required[0]]: value };
  return `expected a JSON object, got ${cutText(textOf(value), 100)}`;
}

/** JSON with object keys sorted, so equal arguments give equal signatures. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
