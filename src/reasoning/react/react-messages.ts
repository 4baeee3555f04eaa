/** Prompt and message building for the ReAct loop (prompts in src/prompts/react*.eta). */
import type { ChatMessage, ToolDefinition } from '../../core/model-provider.js';
import renderReactPrompt from '../../prompts/react.eta';
import renderFinalPrompt from '../../prompts/react-final.eta';
import { textOf } from '../../util/text-of.js';
import { parseJsonSafely } from '../../util/untrusted-json.js';
import type { RequestedCall } from './react-decision.js';
import type { ToolTable } from './tool-table.js';
import { cutText } from '../../util/cut-text.js';

export type ToolMode = 'json' | 'native' | 'auto';

/** The system prompt for a mode: tools with their JSON Schema parameters. */
export function systemPrompt(table: ToolTable, mode: ToolMode): string {
  const tools = table.tools.map((tool) => ({
    name: mode === 'native' ? tool.wireName : tool.name,
    description: cutText(tool.description.replace(/\s+/g, ' '), 500),
    parameters: JSON.stringify(tool.parameters),
  }));
  const text = renderReactPrompt({ tools, mode: mode === 'native' ? 'native' : 'json' });
  if (mode !== 'auto') return text;
  return `${text}\nIf you can call tools natively, call them; otherwise answer with the JSON object above.`;
}

/** The first user message: `[UI Context: …]` (when given) then `Goal: …`. */
export function goalMessage(goal: string, uiContext: unknown): string {
  const prefix =
    uiContext === undefined || uiContext === null || uiContext === '' ? '' : `[UI Context: ${textOf(uiContext)}]\n\n`;
  return `${prefix}Goal: ${goal}`;
}

/** OpenAI-style tool definitions, plus `final_answer`. */
export function toolDefinitions(table: ToolTable): ToolDefinition[] {
  return [
    ...table.tools.map((tool) => ({
      type: 'function' as const,
      function: { name: tool.wireName, description: cutText(tool.description, 1000), parameters: tool.parameters },
    })),
    {
      type: 'function' as const,
      function: {
        name: 'final_answer',
        description: 'Give the final answer and stop.',
        parameters: {
          type: 'object',
          properties: { answer: { description: 'The final answer' } },
          required: ['answer'],
        },
      },
    },
  ];
}

/** The assistant message that carries native tool calls (ids as the loop uses them). */
export function assistantToolMessage(content: string, calls: RequestedCall[]): ChatMessage {
  return {
    role: 'assistant',
    content: content === '' ? null : content,
    // Servers check the history too: echo names in OpenAI's pattern and arguments only when they
    // are valid JSON (the observation tells the model what was wrong with the original).
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: wireSafeName(call.name), arguments: wireSafeArguments(call.arguments) },
    })),
  };
}

function wireSafeName(name: unknown): string {
  const text = (typeof name === 'string' ? name : textOf(name)).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return text === '' ? 'unknown' : text;
}

function wireSafeArguments(value: unknown): string {
  const text = typeof value === 'string' ? value : textOf(value);
  return text.length <= 16 * 1024 && parseJsonSafely(text).ok ? text : '{}';
}

export const INVALID_JSON_REPLY =
  'Your response was not valid JSON. Please respond with valid JSON: {"thought": "...", "action": "<tool or final_answer>", "action_input": {...}}';

export const INVALID_TOOL_CALL_REPLY =
  'Your tool call could not be read (its arguments must be one JSON object). Call the tool again with valid arguments, or give the final answer.';

export const EMPTY_REPLY = 'Your response was empty. Call a tool, or give the final answer.';

/** The tools-off request for `on_limit: final_answer`. */
export function finalAnswerRequest(): string {
  return renderFinalPrompt({});
}
