/**
 * TEA's `llm.chat` and `llm.embed`.
 *
 * `llm.chat` is TEA's chat form: `messages` are required, and, as TEA's Python does when it hands
 * the call to `llm.call`, `max_tokens` defaults to 100 (write a larger one for longer answers).
 * The call goes through `context.callLlm`, so settings.llm, host overrides, budgets and events
 * are the same as llm.call's. Returns {content, usage, model, finish_reason}.
 *
 * `llm.embed` sends `text` (one string, or a list) to the OpenAI-compatible `/v1/embeddings` of
 * the run's model connection (Ollama, LM Studio, llama.cpp and vLLM serve it), or, with the
 * scripted model, computes deterministic offline vectors. Returns TEA's {embedding, dimensions,
 * model} for one text, plus `embeddings` (all vectors, in order) for a list.
 */
import { AgentError } from '../core/agent-error.js';
import type { ActionDefinition, EmbedCallParams, LlmCallParams } from '../core/action.js';
import { llmResult } from '../llm/llm-result.js';
import { rejectUnknownKeys } from './closed-params.js';
import {
  MODEL_MAX_TOKENS_CEILING,
  MODEL_RETRIES_CEILING,
  MODEL_TIMEOUT_SECONDS_CEILING,
} from '../core/setting-ceilings.js';

/** TEA's default for llm.chat (llm_local_actions.py passes max_tokens=100 to llm.call). */
const CHAT_DEFAULT_MAX_TOKENS = 100;
/** Texts per llm.embed call, and characters per text: one node cannot send a corpus. */
const MAX_EMBED_TEXTS = 256;
const MAX_EMBED_TEXT_CHARS = 32_000;

const CONNECTION_PROPERTIES = {
  model: { type: 'string' },
  provider: { type: 'string' },
  api_base: { type: 'string' },
  api_key: { type: 'string' },
  timeout: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: MODEL_TIMEOUT_SECONDS_CEILING,
    description: 'seconds per attempt',
  },
  max_retries: { type: 'integer', minimum: 0, maximum: MODEL_RETRIES_CEILING },
} as const;

const llmChat: ActionDefinition<Record<string, unknown>> = {
  name: 'llm.chat',
  description:
    "Chat completion over `messages` (TEA's llm.chat; max_tokens defaults to 100 as in TEA). Returns {content, usage, model, finish_reason}.",
  parameters: {
    type: 'object',
    required: ['messages'],
    properties: {
      messages: { type: 'array', minItems: 1, items: { type: 'object' }, description: 'chat messages {role, content}' },
      max_tokens: { type: 'integer', minimum: 1, maximum: MODEL_MAX_TOKENS_CEILING, default: CHAT_DEFAULT_MAX_TOKENS },
      temperature: { type: 'number', default: 0.7 },
      stop: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      response_format: {},
      stream: { type: 'boolean' },
      ...CONNECTION_PROPERTIES,
    },
    additionalProperties: false,
  },
  async run(params, context) {
    rejectUnknownKeys(params, llmChat.parameters!, 'llm.chat');
    if (!Array.isArray(params.messages) || params.messages.length === 0) {
      throw new AgentError('INVALID_PARAMS', 'llm.chat needs `messages`: a non-empty list of {role, content}', {
        field: 'messages',
      });
    }
    const { stream, ...rest } = params;
    // TEA's default applies only when neither the call nor settings.llm names max_tokens.
    const configured = context.settings.llm?.max_tokens !== undefined;
    const call = (configured ? rest : { max_tokens: CHAT_DEFAULT_MAX_TOKENS, ...rest }) as LlmCallParams;
    return llmResult(await context.callLlm(call, { stream: stream === true }));
  },
};

const llmEmbed: ActionDefinition<Record<string, unknown>> = {
  name: 'llm.embed',
  description:
    "Embeds `text` (a string or a list) with the OpenAI-compatible /v1/embeddings of the run's model server. Returns {embedding, dimensions, model} (and `embeddings` for a list).",
  parameters: {
    type: 'object',
    required: ['text'],
    properties: {
      text: {
        anyOf: [
          { type: 'string', maxLength: MAX_EMBED_TEXT_CHARS },
          {
            type: 'array',
            minItems: 1,
            maxItems: MAX_EMBED_TEXTS,
            items: { type: 'string', maxLength: MAX_EMBED_TEXT_CHARS },
          },
        ],
      },
      backend: { enum: ['api', 'auto', null], description: 'TEA: `local` (llama.cpp in-process) does not exist here' },
      ...CONNECTION_PROPERTIES,
    },
    additionalProperties: false,
  },
  async run(params, context) {
    rejectUnknownKeys(params, llmEmbed.parameters!, 'llm.embed');
    const { text, backend, ...connection } = params;
    const input = readTexts(text);
    // TEA examples write `backend: "{{ state.backend | default('auto') }}"`, which renders to null.
    if (backend !== undefined && backend !== null && backend !== 'api' && backend !== 'auto') {
      throw new AgentError(
        'INVALID_PARAMS',
        `llm.embed: backend '${String(backend)}' is not available; tea-edge embeds through the model server (backend: api)`,
        { field: 'backend' },
      );
    }
    const response = await context.embed({ ...(connection as Omit<EmbedCallParams, 'input'>), input });
    const first = response.embeddings[0]!;
    const result: Record<string, unknown> = {
      embedding: first,
      dimensions: first.length,
      model: response.model,
      tokens_used: response.usage.prompt_tokens,
    };
    if (Array.isArray(text)) result.embeddings = response.embeddings;
    return result;
  },
};

function readTexts(text: unknown): string[] {
  const texts = typeof text === 'string' ? [text] : text;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((item) => typeof item === 'string')) {
    throw new AgentError('INVALID_PARAMS', 'llm.embed needs `text`: a string or a non-empty list of strings', {
      field: 'text',
    });
  }
  if (texts.length > MAX_EMBED_TEXTS)
    throw new AgentError(
      'INVALID_PARAMS',
      `llm.embed: at most ${MAX_EMBED_TEXTS} texts per call (got ${texts.length})`,
      { field: 'text' },
    );
  const long = texts.findIndex((item: string) => item.length > MAX_EMBED_TEXT_CHARS);
  if (long >= 0)
    throw new AgentError(
      'INVALID_PARAMS',
      `llm.embed: text ${long} is longer than ${MAX_EMBED_TEXT_CHARS} characters`,
      { field: 'text' },
    );
  return texts as string[];
}

export function llmChatEmbedActions(): ActionDefinition[] {
  return [llmChat, llmEmbed];
}
