/**
 * A model server that hangs, over real HTTP on 127.0.0.1, for the calls that are not streamed
 * (whole answers and embeddings): silent before its headers, after its headers, or in the middle
 * of its body. Each frees the call after `first_token_timeout` (to the first byte) or `timeout`
 * (between bytes), retried once at most; a slow server that answers late, or sends its body slowly,
 * is still answered. Durations are scaled down (hundreds of milliseconds); nothing asserts on
 * elapsed time, only on outcomes, the wait named in the error and request counts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import { requestEmbeddings } from '../../src/llm/embeddings-client.js';

type Behaviour =
  /** Reads the request and never answers. */
  | { kind: 'before-headers' }
  /** Sends 200 and its headers, then nothing. */
  | { kind: 'after-headers' }
  /** Sends the first half of the body, then nothing. */
  | { kind: 'mid-body' }
  /** Answers in full after `ms`. */
  | { kind: 'late'; ms: number }
  /** Sends the body in `pieces` parts, `everyMs` apart. */
  | { kind: 'trickle'; pieces: number; everyMs: number };

const ANSWER = JSON.stringify({
  id: 'x',
  object: 'chat.completion',
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Late but whole.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
});
const EMBEDDING = JSON.stringify({
  object: 'list',
  model: 'e',
  data: [{ object: 'embedding', index: 0, embedding: [0.5, 0.25] }],
  usage: { prompt_tokens: 1, total_tokens: 1 },
});
const fast = { baseDelayMs: 1, maxDelayMs: 2, retryAfterCapMs: 5 };
const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

let server: Server;
let base: string;
let behaviour: Behaviour = { kind: 'before-headers' };
let requests = 0;
const timers = new Set<ReturnType<typeof setTimeout>>();

function later(ms: number, work: () => void): void {
  const timer = setTimeout(() => {
    timers.delete(timer);
    work();
  }, ms);
  timers.add(timer);
}

function answer(incoming: IncomingMessage, response: ServerResponse): void {
  requests++;
  const body = incoming.url?.endsWith('/embeddings') ? EMBEDDING : ANSWER;
  incoming.resume();
  incoming.on('end', () => {
    switch (behaviour.kind) {
      case 'before-headers':
        return;
      case 'after-headers':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.flushHeaders();
        return;
      case 'mid-body':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(body.slice(0, body.length >> 1));
        return;
      case 'late':
        later(behaviour.ms, () => response.writeHead(200, { 'content-type': 'application/json' }).end(body));
        return;
      case 'trickle': {
        const { pieces, everyMs } = behaviour;
        const size = Math.ceil(body.length / pieces);
        response.writeHead(200, { 'content-type': 'application/json' });
        for (let piece = 0; piece < pieces; piece++) {
          later(piece * everyMs, () => {
            const part = body.slice(piece * size, (piece + 1) * size);
            if (piece === pieces - 1) response.end(part);
            else response.write(part);
          });
        }
      }
    }
  });
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
beforeEach(() => {
  requests = 0;
});
afterAll(async () => {
  for (const timer of timers) clearTimeout(timer);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as { code: string; message: string; details: Record<string, unknown> },
  );

/** A whole-answer client: `firstMs` to the first byte, `idleMs` between bytes, generous max_retries. */
const wholeAnswer = (firstMs: number, idleMs: number) =>
  createOpenAiClient(
    { api_base: base, first_token_timeout_ms: firstMs, timeout_ms: idleMs, max_retries: 5 },
    { retryTiming: fast },
  );

describe('a hung server frees a whole answer (not streamed)', () => {
  it('silent before its headers: LLM_TIMEOUT after the first-byte wait, retried once whatever max_retries says', async () => {
    behaviour = { kind: 'before-headers' };
    const retries: unknown[] = [];
    const error = await failure(
      wholeAnswer(400, 150).generate(request, undefined, { beforeRetry: (retry) => void retries.push(retry) }),
    );
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.details.timeout_ms).toBe(400);
    expect(retries).toHaveLength(1);
  });

  it('silent after its headers: the headers alone do not count as the first byte', async () => {
    behaviour = { kind: 'after-headers' };
    const error = await failure(wholeAnswer(400, 150).generate(request));
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.details.timeout_ms).toBe(400);
    expect(requests).toBe(2);
  });

  it('silent in the middle of its body: LLM_TIMEOUT after the idle wait between bytes', async () => {
    behaviour = { kind: 'mid-body' };
    const error = await failure(wholeAnswer(5_000, 200).generate(request));
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.details.timeout_ms).toBe(200);
    expect(requests).toBe(2);
  });

  it('a slow model that answers after more than `timeout` but within `first_token_timeout` is answered', async () => {
    behaviour = { kind: 'late', ms: 600 };
    const response = await wholeAnswer(5_000, 150).generate(request);
    expect(response.content).toBe('Late but whole.');
    expect(requests).toBe(1);
  });

  it('a body that keeps arriving, each gap within `timeout`, is read to its end however long it takes in all', async () => {
    behaviour = { kind: 'trickle', pieces: 10, everyMs: 150 };
    const response = await wholeAnswer(5_000, 1_000).generate(request);
    expect(response.content).toBe('Late but whole.');
    expect(requests).toBe(1);
  });

  it('a cancelled call stops waiting at once, as CANCELLED, not a timeout', async () => {
    behaviour = { kind: 'before-headers' };
    const controller = new AbortController();
    const pending = failure(wholeAnswer(30_000, 30_000).generate(request, controller.signal));
    later(100, () => controller.abort());
    expect((await pending).code).toBe('CANCELLED');
    expect(requests).toBe(1);
  });
});

describe('a hung server frees an embeddings call', () => {
  const embed = (firstMs: number, idleMs: number) =>
    requestEmbeddings(
      { api_base: base, first_token_timeout_ms: firstMs, timeout_ms: idleMs, max_retries: 5 },
      'e',
      ['hello'],
      new AbortController().signal,
    );

  it('silent before its headers: LLM_TIMEOUT after the first-byte wait, retried once, not max_retries', async () => {
    behaviour = { kind: 'before-headers' };
    const error = await failure(embed(300, 150));
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.details.timeout_ms).toBe(300);
    expect(requests).toBe(2);
  });

  it('silent in the middle of its body: LLM_TIMEOUT after the idle wait', async () => {
    behaviour = { kind: 'mid-body' };
    const error = await failure(embed(5_000, 200));
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.details.timeout_ms).toBe(200);
  });

  it('a late answer within the first-byte wait is read', async () => {
    behaviour = { kind: 'late', ms: 500 };
    const response = await embed(5_000, 150);
    expect(response.embeddings).toEqual([[0.5, 0.25]]);
    expect(requests).toBe(1);
  });
});
