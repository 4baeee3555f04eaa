/**
 * `llm.tools`: TEA's model-driven function-calling loop. The model is called with the tools; each
 * tool call it makes is dispatched to a registered action (through `context.callAction`, never
 * anything else) and its result fed back as a `tool` message, until the model answers without tool
 * calls or `max_tool_rounds` model calls (default 10) have been made.
 *
 * Tools are given as action names (`math.calculate`), TEA's YAML form `{name, description,
 * parameters, action}`, or OpenAI definitions `{type: function, function: {...}}` (dispatched to the
 * action of the same name, or to `action:` when given). Action names are sent to the model with
 * dots as underscores, since OpenAI tool names allow only `[A-Za-z0-9_-]`.
 */
import type { ToolCallStatus } from '../core/events.js';
import { AgentError } from '../core/agent-error.js';
import type { ActionCompiler, ActionContext, ActionDefinition } from '../core/action.js';
import type { CompiledValue } from '../templates/types.js';
import type { ChatMessage, TokenUsage, ToolCall, ToolDefinition } from '../core/model-provider.js';
import { parseJsonSafely } from '../util/untrusted-json.js';
import { whyNotATool } from './not-a-tool.js';
import { buildMessages } from '../llm/resolve-llm-call.js';
import { isInfrastructureFailure } from '../llm/llm-errors.js';
import { llmResult } from '../llm/llm-result.js';
import { isPlainObject } from '../util/plain-object.js';
import { llmProperties, MODEL_CALL_KEYS, TOOL_ENTRY_SHAPE } from '../spec/parameter-shapes.js';
import { TOOL_ROUNDS_CEILING } from '../core/setting-ceilings.js';
import { cutText } from '../util/cut-text.js';

export const DEFAULT_MAX_TOOL_ROUNDS = 10;
/** Longest tool result fed back to the model. */
const TOOL_RESULT_LIMIT = 16 * 1024;
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

interface PreparedTool {
  definition: ToolDefinition;
  /** The registered action to run; undefined when an OpenAI definition names no action. */
  action?: string;
}

export interface PreparedLlmTools {
  tools: PreparedTool[];
  maxToolRounds: CompiledValue;
  stream: boolean;
  /** Every other `with:` key (prompt, messages, model, …), compiled as templates. */
  params: Map<string, CompiledValue>;
}

export const llmToolsAction: ActionDefinition<PreparedLlmTools> = {
  name: 'llm.tools',
  description:
    'Calls the model with tools and runs the registered actions it asks for, until it answers (at most max_tool_rounds model calls).',
  parameters: {
    type: 'object',
    required: ['tools'],
    properties: {
      tools: {
        type: 'array',
        description: 'action names, {name, description, parameters, action}, or OpenAI tool definitions',
        items: TOOL_ENTRY_SHAPE,
      },
      max_tool_rounds: { type: 'integer', minimum: 1, maximum: TOOL_ROUNDS_CEILING, default: DEFAULT_MAX_TOOL_ROUNDS },
      prompt: { type: 'string' },
      system: { type: 'string' },
      messages: { type: 'array' },
      tool_choice: {},
      stream: { type: 'boolean' },
      ...llmProperties(MODEL_CALL_KEYS),
    },
    additionalProperties: false,
  },
  prepare(raw, compiler) {
    if (!Array.isArray(raw.tools) || raw.tools.length === 0)
      throw compiler.error('expected a non-empty list of tools', 'tools');
    const tools = raw.tools.map((entry, index) => prepareTool(entry, `tools[${index}]`, compiler));
    tools.forEach((tool, index) => {
      const refusal = tool.action === undefined ? undefined : whyNotATool(tool.action);
      if (refusal !== undefined) throw compiler.error(refusal, `tools[${index}]`);
    });
    const seen = new Set<string>();
    for (const tool of tools) {
      const name = tool.definition.function.name;
      if (seen.has(name)) throw compiler.error(`two tools are named "${name}"`, 'tools');
      seen.add(name);
    }
    const maxToolRounds = compiler.template(raw.max_tool_rounds ?? DEFAULT_MAX_TOOL_ROUNDS, 'max_tool_rounds');
    if (maxToolRounds.isStatic)
      checkRounds(maxToolRounds.source, (message) => compiler.error(message, 'max_tool_rounds'));
    const params = new Map<string, CompiledValue>();
    for (const [key, value] of Object.entries(raw)) {
      if (key === 'tools' || key === 'max_tool_rounds' || key === 'stream') continue;
      params.set(key, compiler.template(value, key));
    }
    return { tools, maxToolRounds, stream: raw.stream === true, params };
  },
  async run(prepared, context) {
    return runToolLoop(prepared, context);
  },
};

function prepareTool(entry: unknown, field: string, compiler: ActionCompiler): PreparedTool {
  const named = typeof entry === 'string' ? entry : isPlainObject(entry) ? entry['name'] : undefined;
  if (typeof named === 'string' && named.startsWith('mcp.')) {
    // MCP tools are untrusted: they need ReAct's tiers, roles and argument validation (docs/mcp.md).
    throw compiler.error(`MCP tool '${named}': use it in reason.react only (docs/mcp.md)`, field, 'UNKNOWN_TOOL');
  }
  if (typeof entry === 'string') return fromAction(compiler.action(entry, field), field, compiler);
  if (!isPlainObject(entry)) throw compiler.error('expected an action name or a tool definition', field);
  const tool = entry;
  if (tool['type'] === 'function' && isPlainObject(tool['function'])) {
    const fn = tool['function'];
    if (typeof fn.name !== 'string' || !TOOL_NAME_PATTERN.test(fn.name))
      throw compiler.error('function.name must match [A-Za-z0-9_-]{1,64}', field);
    const definition: ToolDefinition = { type: 'function', function: { name: fn.name } };
    if (typeof fn.description === 'string') definition.function.description = fn.description;
    if (isPlainObject(fn.parameters)) definition.function.parameters = fn.parameters;
    const actionName = typeof tool.action === 'string' ? tool.action : undefined;
    if (actionName !== undefined) return { definition, action: compiler.action(actionName, `${field}.action`).name };
    const action = tryAction(fn.name, compiler) ?? tryAction(fn.name.replace(/_/g, '.'), compiler);
    return action === undefined ? { definition } : { definition, action: action.name };
  }
  if (typeof tool.name === 'string') {
    const action = compiler.action(typeof tool.action === 'string' ? tool.action : tool.name, `${field}.action`);
    const prepared = fromAction(action, field, compiler, tool.name);
    if (typeof tool.description === 'string') prepared.definition.function.description = tool.description;
    if (isPlainObject(tool.parameters)) prepared.definition.function.parameters = teaParameters(tool.parameters);
    return prepared;
  }
  throw compiler.error(
    'expected an action name, {name, action, ...} or {type: function, function: {name, ...}}',
    field,
  );
}

function fromAction(
  action: ActionDefinition,
  field: string,
  compiler: ActionCompiler,
  name = action.name,
): PreparedTool {
  const toolName = name.replace(/\./g, '_');
  if (!TOOL_NAME_PATTERN.test(toolName))
    throw compiler.error(`tool name "${name}" cannot be sent to a model (allowed: letters, digits, _ - .)`, field);
  const definition: ToolDefinition = {
    type: 'function',
    function: {
      name: toolName,
      description: action.description,
      parameters: action.parameters ?? { type: 'object', properties: {} },
    },
  };
  return { definition, action: action.name };
}

function tryAction(name: string, compiler: ActionCompiler): ActionDefinition | undefined {
  try {
    return compiler.action(name, 'tools');
  } catch {
    return undefined;
  }
}

/** TEA's `{p: {type, description, enum, required}}` → a JSON Schema object (already-schemas pass). */
function teaParameters(parameters: Record<string, unknown>): Record<string, unknown> {
  if (parameters.type === 'object') return parameters;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value !== 'object' || value === null) continue;
    const { required: isRequired, ...schema } = value as Record<string, unknown>;
    properties[key] = schema;
    if (isRequired === true) required.push(key);
  }
  return { type: 'object', properties, required };
}

function checkRounds(value: unknown, fail: (message: string) => AgentError): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > TOOL_ROUNDS_CEILING)
    throw fail(`max_tool_rounds must be an integer from 1 to ${TOOL_ROUNDS_CEILING} (its ceiling)`);
  return number;
}

async function runToolLoop(prepared: PreparedLlmTools, context: ActionContext): Promise<Record<string, unknown>> {
  const scope = context.scope();
  const params: Record<string, unknown> = {};
  for (const [key, value] of prepared.params) params[key] = value.render(scope);
  const maxRounds = checkRounds(
    prepared.maxToolRounds.render(scope),
    (message) => new AgentError('INVALID_PARAMS', message, { field: 'max_tool_rounds' }),
  );
  const messages: ChatMessage[] = buildMessages(params);
  const { prompt: _prompt, system: _system, messages: _messages, ...callParams } = params;
  const byName = new Map(prepared.tools.map((tool) => [tool.definition.function.name, tool]));
  const definitions = prepared.tools.map((tool) => tool.definition);
  const executed: { id: string; name: string; arguments: unknown }[] = [];
  const results: { tool_call_id: string; name: string; result: unknown }[] = [];
  const usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let model = 'unknown';

  for (let round = 1; round <= maxRounds; round++) {
    const response = await context.callLlm(
      { tool_choice: 'auto', ...callParams, messages, tools: definitions },
      { stream: prepared.stream, label: 'llm.tools' },
    );
    usage.prompt_tokens += response.usage.prompt_tokens;
    usage.completion_tokens += response.usage.completion_tokens;
    usage.total_tokens += response.usage.total_tokens;
    model = response.model;
    const summary = { tool_calls: executed, tool_results: results, rounds: round };
    if (response.tool_calls === undefined || response.tool_calls.length === 0) {
      return { ...llmResult({ ...response, usage }), ...summary };
    }
    messages.push({
      role: 'assistant',
      content: response.content === '' ? null : response.content,
      tool_calls: response.tool_calls,
    });
    for (const call of response.tool_calls) {
      const outcome = await runToolCall(call, byName.get(call.function.name), context, round, [...byName.keys()]);
      executed.push({ id: call.id, name: call.function.name, arguments: outcome.arguments });
      results.push({ tool_call_id: call.id, name: call.function.name, result: outcome.result });
      messages.push({ role: 'tool', tool_call_id: call.id, name: call.function.name, content: outcome.text });
    }
  }
  return {
    content: '',
    usage,
    model,
    finish_reason: 'tool_calls',
    warning: `Max tool rounds (${maxRounds}) reached`,
    tool_calls: executed,
    tool_results: results,
    rounds: maxRounds,
  };
}

async function runToolCall(
  call: ToolCall,
  tool: PreparedTool | undefined,
  context: ActionContext,
  round: number,
  available: string[],
): Promise<{ arguments: unknown; result: unknown; text: string }> {
  // Untrusted model output: size/depth-capped, and __proto__/constructor/prototype keys dropped.
  const outcome = parseJsonSafely(call.function.arguments.trim() === '' ? '{}' : call.function.arguments);
  const parsedArguments: unknown = outcome.ok ? outcome.value : undefined;
  context.emit('tool_start', {
    tool: call.function.name,
    action: tool?.action ?? null,
    arguments: parsedArguments ?? call.function.arguments,
    call_id: call.id,
    round,
  });
  let result: unknown;
  let refused: ToolCallStatus | undefined;
  if (tool === undefined) {
    result = { error: `Unknown tool '${call.function.name}'. Available: ${available.join(', ')}` };
    refused = 'unknown';
  } else if (tool.action === undefined) {
    result = { error: `Tool '${call.function.name}' has no registered action to run` };
    refused = 'error';
  } else if (!isPlainObject(parsedArguments)) {
    result = { error: 'the tool arguments are not a JSON object' };
    refused = 'invalid';
  } else {
    try {
      result = await context.callAction(tool.action, parsedArguments as Record<string, unknown>);
    } catch (error) {
      // A tool's own failure is a result the model sees; infrastructure (a model server down behind
      // the tool, storage, cancellation, budgets) ends the node (docs/execution-model.md).
      if (!AgentError.isInstance(error) || isInfrastructureFailure(error)) throw error;
      result = { error: error.message, code: error.code };
    }
  }
  const text = toolResultText(result);
  const failed = typeof result === 'object' && result !== null && 'error' in result;
  const status = refused ?? (failed ? 'error' : 'ok');
  context.emit('tool_result', { tool: call.function.name, call_id: call.id, status, observation: text, round });
  return { arguments: parsedArguments ?? call.function.arguments, result, text };
}

function toolResultText(result: unknown): string {
  let text: string;
  try {
    text = typeof result === 'string' ? result : (JSON.stringify(result) ?? 'null');
  } catch {
    text = JSON.stringify({ error: 'the tool result cannot be serialised as JSON' });
  }
  return cutText(text, TOOL_RESULT_LIMIT);
}
