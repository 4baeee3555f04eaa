/**
 * The real-server part of the ModelProvider conformance suite: transcripts of what Ollama,
 * llama.cpp, vLLM, LM Studio, TGI, LocalAI, SGLang and mlx-vlm send (tests/conformance/transcripts/, one
 * JSON file each, format in its README.md) are served byte for byte over HTTP on 127.0.0.1 by
 * tests/support/transcript-server.ts, with their chunking, and the real client must come out with
 * the expected answer, reasoning and tool calls, or the expected typed error quoting the server.
 * Each streamed transcript also runs re-cut into 3-byte writes, which splits every `data:` line
 * and every multi-byte character. Portable (no Node APIs): the same cases run in Node, workerd,
 * Chromium and Deno (through tests/deno/vitest-shim.ts).
 */
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/core/agent-error.js';
import type {
  LlmRequest,
  LlmResponse,
  LlmStreamPart,
  ModelProvider,
  ToolDefinition,
} from '../../src/core/model-provider.js';

/** One write of a streamed body: text, or text cut in two inside the first occurrence of a character. */
export type TranscriptWrite = string | { text: string; cut_inside: string };

/** One HTTP answer of the server (a transcript may hold several: the answers to successive attempts). */
export interface TranscriptResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The body in writes, as the server flushed them (chunked transfer). */
  writes?: TranscriptWrite[];
  /** A whole body, sent with a Content-Length: text as is, any other JSON value serialised. */
  body?: unknown;
  /** `before_headers`: the connection is closed before any byte; `after_writes`: reset after the writes. */
  drop?: 'before_headers' | 'after_writes';
}

export interface TranscriptExpectation {
  content?: string;
  /** The reasoning the response carries; `null` when it must carry none. */
  reasoning?: string | null;
  tool_calls?: { id?: string; name: string; arguments: Record<string, unknown> }[];
  finish_reason?: string | null;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** The streamed answer deltas joined, when they differ from `content` (a lone `</think>`). */
  deltas?: string;
  error?: { code: string; includes?: string[]; reason?: string };
  /** HTTP requests the client makes (default 1). */
  requests?: number;
}

export interface Transcript {
  server: string;
  versions: string;
  title: string;
  /** Where the bytes come from: source files, issues, pull requests, docs. */
  source: string[];
  /** What the transcript proves (which class of issue 22, which quirk). */
  proves: string;
  request: { stream: boolean; tools?: ToolDefinition[]; max_retries?: number };
  responses: TranscriptResponse[];
  expect: TranscriptExpectation;
}

export interface NamedTranscript {
  /** `<server>/<case>`, from the file's path. */
  name: string;
  transcript: Transcript;
}

const KEYS: Record<string, readonly string[]> = {
  transcript: ['server', 'versions', 'title', 'source', 'proves', 'request', 'responses', 'expect'],
  request: ['stream', 'tools', 'max_retries'],
  response: ['status', 'headers', 'writes', 'body', 'drop'],
  expect: ['content', 'reasoning', 'tool_calls', 'finish_reason', 'usage', 'deltas', 'error', 'requests'],
  error: ['code', 'includes', 'reason'],
};

/** Checks a parsed transcript file; unknown keys and missing parts are errors naming the file and key. */
export function checkTranscript(value: unknown, name: string): Transcript {
  const fail = (message: string): never => {
    throw new Error(`transcript ${name}: ${message}`);
  };
  const object = (candidate: unknown, where: string, kind: string): Record<string, unknown> => {
    if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate))
      return fail(`${where} must be an object`);
    const record = candidate as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!KEYS[kind]!.includes(key)) fail(`unknown key '${key}' in ${where} (known: ${KEYS[kind]!.join(', ')})`);
    }
    return record;
  };
  const top = object(value, 'the file', 'transcript');
  for (const key of ['server', 'versions', 'title', 'proves'])
    if (typeof top[key] !== 'string' || top[key] === '') fail(`'${key}' must be a non-empty string`);
  if (!Array.isArray(top.source) || top.source.length === 0 || !top.source.every((entry) => typeof entry === 'string'))
    fail("'source' must list where the bytes come from");
  const request = object(top.request, 'request', 'request');
  if (typeof request.stream !== 'boolean') fail("'request.stream' must be true or false");
  if (!Array.isArray(top.responses) || top.responses.length === 0) fail("'responses' must list at least one answer");
  (top.responses as unknown[]).forEach((response, index) => {
    const record = object(response, `responses[${index}]`, 'response');
    if (record.writes === undefined && record.body === undefined && record.drop !== 'before_headers')
      fail(`responses[${index}] needs 'writes' or 'body'`);
  });
  const expected = object(top.expect, 'expect', 'expect');
  if (expected.error !== undefined) object(expected.error, 'expect.error', 'error');
  else if (typeof expected.content !== 'string') fail("'expect' needs 'content' (or 'error')");
  return value as Transcript;
}

/** The bytes of one response's writes; with `cut`, re-cut into pieces of that many bytes. */
export function transcriptWrites(response: TranscriptResponse, cut?: number): Uint8Array[] {
  const encoder = new TextEncoder();
  const pieces: Uint8Array[] = [];
  for (const write of response.writes ?? []) {
    if (typeof write === 'string') {
      pieces.push(encoder.encode(write));
      continue;
    }
    const bytes = encoder.encode(write.text);
    const at = write.text.indexOf(write.cut_inside);
    if (at < 0 || encoder.encode(write.cut_inside).length < 2)
      throw new Error(`cut_inside '${write.cut_inside}' is not a multi-byte character of the write`);
    const split = encoder.encode(write.text.slice(0, at)).length + 1;
    pieces.push(bytes.slice(0, split), bytes.slice(split));
  }
  if (cut === undefined) return pieces;
  const whole = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    whole.set(piece, offset);
    offset += piece.length;
  }
  const recut: Uint8Array[] = [];
  for (let start = 0; start < whole.length; start += cut) recut.push(whole.slice(start, start + cut));
  return recut;
}

/** A provider connected to the transcript server for one case. */
export interface TranscriptProvider {
  provider: ModelProvider;
  /** HTTP requests the server saw for this case. */
  attempts(): number | Promise<number>;
}

/** Builds the provider for one run of a transcript (`cut`: the re-cut size, undefined as written). */
export type TranscriptProviderFactory = (
  named: NamedTranscript,
  cut: number | undefined,
) => Promise<TranscriptProvider>;

/** The re-cut that splits every `data:` line and every multi-byte character. */
export const TRANSCRIPT_CUT_BYTES = 3;

/** The request a transcript answers. */
export function transcriptRequest(transcript: Transcript): LlmRequest {
  const request: LlmRequest = {
    model: 'local-model',
    messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
  };
  if (transcript.request.tools !== undefined) request.tools = transcript.request.tools;
  return request;
}

/** Registers one case per transcript (and per re-cut of a streamed one). */
export function describeTranscripts(
  label: string,
  transcripts: readonly NamedTranscript[],
  factory: TranscriptProviderFactory,
): void {
  describe(`${label}: real-server transcripts`, () => {
    for (const named of transcripts) {
      const cuts: (number | undefined)[] =
        named.transcript.request.stream && named.transcript.responses.some((response) => response.writes !== undefined)
          ? [undefined, TRANSCRIPT_CUT_BYTES]
          : [undefined];
      for (const cut of cuts) {
        it(`${named.name}${cut === undefined ? '' : ` (re-cut every ${cut} bytes)`}: ${named.transcript.title}`, async () => {
          const under = await factory(named, cut);
          await checkOutcome(named.transcript, under);
        });
      }
    }
  });
}

async function checkOutcome(transcript: Transcript, under: TranscriptProvider): Promise<void> {
  const request = transcriptRequest(transcript);
  const expected = transcript.expect;
  let response: LlmResponse | undefined;
  let deltas = '';
  let error: unknown;
  try {
    if (transcript.request.stream) {
      for await (const part of under.provider.stream(request) as AsyncIterable<LlmStreamPart>) {
        if (part.type === 'delta') deltas += part.content;
        if (part.type === 'done') response = part.response;
      }
    } else {
      response = await under.provider.generate(request);
    }
  } catch (caught) {
    error = caught;
  }
  if (expected.error !== undefined) {
    expect(response).toBeUndefined();
    expect(AgentError.isInstance(error) || (typeof error === 'object' && error !== null && 'code' in error)).toBe(true);
    const typed = error as { code: string; message: string; details?: Record<string, unknown> };
    expect(typed.code).toBe(expected.error.code);
    for (const fragment of expected.error.includes ?? []) expect(typed.message).toContain(fragment);
    if (expected.error.reason !== undefined) expect(typed.details?.reason).toBe(expected.error.reason);
  } else {
    if (error !== undefined) throw error;
    expect(response).toBeDefined();
    expect(response!.content).toBe(expected.content);
    expect(response!.reasoning).toBe(expected.reasoning ?? undefined);
    if (transcript.request.stream) expect(deltas).toBe(expected.deltas ?? expected.content);
    const calls = (response!.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: JSON.parse(call.function.arguments) as unknown,
    }));
    const wanted = expected.tool_calls ?? [];
    expect(calls.length).toBe(wanted.length);
    wanted.forEach((call, index) => {
      expect(calls[index]!.name).toBe(call.name);
      expect(calls[index]!.arguments).toEqual(call.arguments);
      if (call.id !== undefined) expect(calls[index]!.id).toBe(call.id);
    });
    if (expected.finish_reason !== undefined) expect(response!.finish_reason).toBe(expected.finish_reason);
    if (expected.usage !== undefined) expect(response!.usage).toEqual(expected.usage);
  }
  expect(await under.attempts()).toBe(expected.requests ?? 1);
}
