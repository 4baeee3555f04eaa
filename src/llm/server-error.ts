/**
 * The model server's own words about a failure, wherever it put them: an HTTP error body
 * (`{error: {message, type, code}}`, vLLM's `{object: "error", message}`, TGI's `{error: "…"}`),
 * a 200 body that is only an error (LM Studio's `{"error": "Unexpected endpoint or method. …"}`),
 * a `data: {"error": …}` payload or an SSE `error:` field inside a 200 stream (llama.cpp before
 * PR 16486). The text is quoted redacted first, then cut, and where it says what happened (the
 * prompt is over the context size, the model is not there, the URL is not the API, a flag is
 * missing) a sentence in plain words says what to change.
 */
import { isPlainObject } from '../util/plain-object.js';
import { cutText } from '../util/cut-text.js';

/** How much of the server's message is quoted. */
export const QUOTED_MESSAGE_LIMIT = 300;

/** What the server said, quoted, and what it means when it is recognised. */
export interface ServerErrorReport {
  /** The server's message, redacted then capped. */
  quoted: string;
  /** A recognised cause, e.g. `context_exceeded`. */
  reason?: ServerErrorReason;
  /** The cause in plain words, with the fix. */
  explanation?: string;
}

export type ServerErrorReason =
  | 'context_exceeded'
  | 'model_missing'
  | 'wrong_endpoint'
  | 'embeddings_disabled'
  | 'tools_unsupported';

/**
 * Recognisable causes, checked in order. The patterns are the servers' own phrasings (llama.cpp
 * tools/server, Ollama openai/ and server/, vLLM entrypoints/openai, LM Studio, TGI).
 */
const EXPLANATIONS: readonly { reason: ServerErrorReason; pattern: RegExp; explanation: string }[] = [
  {
    reason: 'context_exceeded',
    pattern:
      /context (size|length|window)|exceed_context_size|maximum context|n_ctx|prompt is too long|too many tokens|input is too long|max_model_len|must have less than \d+ tokens|must be <= \d+/i,
    explanation:
      'the prompt (messages, tool results and the room left for the answer) is longer than the context size the model was loaded with. ' +
      'Shorten the input or raise the context size: Ollama `num_ctx` (or OLLAMA_CONTEXT_LENGTH), llama.cpp `-c`/`--ctx-size`, ' +
      'vLLM `--max-model-len`, LM Studio the context length when loading the model.',
  },
  {
    reason: 'embeddings_disabled',
    pattern: /--embeddings|does not support embeddings|embeddings? (are|is) not (enabled|supported)/i,
    explanation:
      'this server was started without embeddings: restart llama-server with `--embeddings` (or point llm.embed at an embedding model).',
  },
  {
    reason: 'tools_unsupported',
    pattern:
      /does not support tools|tools param requires --jinja|--enable-auto-tool-choice|tool[ _]choice.*(requires|not supported)/i,
    explanation:
      'the server or model cannot take `tools`: use a model whose chat template supports tools, start llama-server with `--jinja`, ' +
      'or vLLM with `--enable-auto-tool-choice --tool-call-parser <parser>`.',
  },
  {
    reason: 'model_missing',
    pattern:
      /model[^.]*\b(not found|does not exist|not loaded|is not available)|no models? (is )?loaded|try pulling it|model_not_found|failed to load model|model is loading|loading model/i,
    explanation:
      'the server does not have this model ready (unknown name, not pulled, not loaded, or still loading): check the name against `GET /v1/models`, then pull it (`ollama pull <model>`) ' +
      'or load it (LM Studio: load it in the app or `lms load <model>`).',
  },
  {
    reason: 'wrong_endpoint',
    pattern:
      /unexpected endpoint|404 page not found|cannot post|no route|unknown (endpoint|route|url)|route not found|not found: \/|method not allowed/i,
    explanation:
      'the URL is not an OpenAI-compatible API: api_base must end in `/v1` (Ollama http://localhost:11434/v1, LM Studio http://localhost:1234/v1, ' +
      'llama.cpp http://localhost:8080/v1, vLLM http://localhost:8000/v1).',
  },
];

/**
 * The error message a server put in a parsed body or payload, or undefined when it carries none.
 * Shapes: `{error: {message}}`, `{error: "…"}`, `{object: "error", message}`, `{detail: "…"}`.
 */
export function serverErrorMessage(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const error = value.error;
  if (typeof error === 'string' && error.trim() !== '') return error;
  if (isPlainObject(error)) {
    if (typeof error.message === 'string' && error.message.trim() !== '') return error.message;
    return JSON.stringify(error);
  }
  if (value.object === 'error' && typeof value.message === 'string') return value.message;
  if (typeof value.detail === 'string' && value.detail.trim() !== '') return value.detail;
  return undefined;
}

/** The error message in a raw body: its JSON error when it has one, else the text itself. */
export function serverErrorMessageOfBody(body: string): string {
  return serverErrorMessageOfJson(body) ?? body.trim();
}

/** The error message of a text that is a JSON error object; undefined for anything else. */
export function serverErrorMessageOfJson(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    return serverErrorMessage(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

/** Quotes `message` (redacted, then cut) and explains it when it is recognised. */
export function describeServerError(message: string, secrets: readonly string[]): ServerErrorReport {
  // Redacted, then cut; a secret's start left before the cut mark is redacted too (util/cut-text.ts).
  const quoted = cutText(message.trim(), QUOTED_MESSAGE_LIMIT, secrets);
  const report: ServerErrorReport = { quoted };
  const known = EXPLANATIONS.find((entry) => entry.pattern.test(message));
  if (known !== undefined) {
    report.reason = known.reason;
    report.explanation = known.explanation;
  }
  return report;
}

/** `"<quoted>". <Explanation>` for a message, or just the quote. */
export function serverErrorSentence(report: ServerErrorReport): string {
  const quote = report.quoted === '' ? '' : `: "${report.quoted}"`;
  return report.explanation === undefined ? quote : `${quote}. Meaning: ${report.explanation}`;
}
