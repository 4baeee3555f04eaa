/**
 * Model-client figures:
 * - added streaming latency: for each streamed chunk, the time from the mock server writing it to
 *   the matching `answer_chunk` event reaching the consumer of `runAgent` (llm.stream), minus the
 *   same for a raw fetch reader in the same process (median, ms; target ≤ 1 ms);
 * - SSE parsing throughput of a recorded 1 MB OpenAI-style stream (parser alone, and parser +
 *   chunk assembler), MB/s;
 * - the scripted model's per-call overhead, alone and through the ModelCaller (events, budget), µs.
 */
import { runAgent } from '../src/graph/run-agent.js';
import { loadAgent } from '../src/load-agent-with-scripts.js';
import { createChatStreamAssembler } from '../src/llm/chat-stream-assembler.js';
import { createModelCaller } from '../src/llm/model-caller.js';
import { createScriptedModel } from '../src/llm/scripted-model.js';
import { createSseParser } from '../src/llm/sse-parser.js';
import { startMockOpenAI } from '../tests/support/mock-openai-server.js';
import type { BenchResult } from './bench-result.js';

const CHUNKS = 60;
const CHUNK_DELAY_MS = 15;

export async function run(): Promise<BenchResult[]> {
  const latency = await streamingLatency();
  const throughput = sseThroughput();
  const scripted = await scriptedOverhead();
  return [
    {
      name: 'llm stream: added latency/chunk vs raw fetch (median)',
      value: round(latency.added, 3),
      unit: 'ms',
      baseline_value: 1,
      ratio: round(latency.added / 1, 3),
    },
    { name: 'llm stream: write → answer_chunk at consumer (median)', value: round(latency.engine, 3), unit: 'ms' },
    { name: 'llm stream: write → raw fetch reader (median)', value: round(latency.raw, 3), unit: 'ms' },
    { name: 'llm SSE parser throughput (1 MB recorded stream)', value: round(throughput.parser, 1), unit: 'MB/s' },
    { name: 'llm SSE parser + chunk assembler (1 MB stream)', value: round(throughput.assembled, 1), unit: 'MB/s' },
    { name: 'llm scripted model per call (generate)', value: round(scripted.model, 2), unit: 'µs' },
    { name: 'llm scripted model per call via ModelCaller', value: round(scripted.caller, 2), unit: 'µs' },
  ];
}

async function streamingLatency(): Promise<{ engine: number; raw: number; added: number }> {
  const content = Array.from({ length: CHUNKS }, (_, index) => `w${String(index).padStart(2, '0')}`).join('');
  const written: number[] = [];
  const server = await startMockOpenAI({
    replies: [content],
    chunkSize: 3,
    chunkDelayMs: CHUNK_DELAY_MS,
    onContentChunkWritten: (index, time) => void (written[index] = time),
  });
  try {
    const engineTimes: number[] = [];
    const agent = loadAgent(
      `name: stream-bench\nsettings: { llm: { api_base: "${server.url}", model: m } }\nnodes:\n  - { name: s, uses: llm.stream, with: { prompt: go } }\n`,
    );
    const started = runAgent(agent, {});
    for await (const event of started) if (event.type === 'answer_chunk') engineTimes.push(performance.now());
    await started.result;
    const engine = median(engineTimes.map((time, index) => time - written[index]!));

    written.length = 0;
    const rawTimes: number[] = [];
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ stream: true, messages: [] }),
    });
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const now = performance.now();
      const text = new TextDecoder().decode(value);
      for (const _match of text.matchAll(/"content":"(?!")/g)) rawTimes.push(now);
    }
    const raw = median(rawTimes.map((time, index) => time - written[index]!));
    return { engine, raw, added: engine - raw };
  } finally {
    await server.close();
  }
}

function recordedStream(): Uint8Array {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < 1024 * 1024; index++) {
    const chunk = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: ` token${index} été` }, finish_reason: null }] })}\n\n`;
    parts.push(chunk);
    size += chunk.length;
  }
  parts.push(
    `data: ${JSON.stringify({ id: 'chatcmpl-1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
  );
  return new TextEncoder().encode(parts.join(''));
}

function sseThroughput(): { parser: number; assembled: number } {
  const bytes = recordedStream();
  const megabytes = bytes.byteLength / (1024 * 1024);
  const pieceSize = 16 * 1024;
  const measure = (assemble: boolean): number => {
    const timings: number[] = [];
    for (let round = 0; round < 12; round++) {
      const start = performance.now();
      const parser = createSseParser();
      const assembler = createChatStreamAssembler('m');
      for (let offset = 0; offset < bytes.byteLength; offset += pieceSize) {
        for (const event of parser.push(bytes.subarray(offset, offset + pieceSize)))
          if (assemble) assembler.accept(event.data);
      }
      for (const event of parser.finish()) if (assemble) assembler.accept(event.data);
      if (assemble) assembler.result();
      timings.push(performance.now() - start);
    }
    return megabytes / (median(timings.slice(2)) / 1000);
  };
  return { parser: measure(false), assembled: measure(true) };
}

async function scriptedOverhead(): Promise<{ model: number; caller: number }> {
  const calls = 20_000;
  const request = { messages: [{ role: 'user' as const, content: 'hello' }] };
  const model = createScriptedModel(Array.from({ length: calls }, (_, index) => `answer ${index}`));
  let start = performance.now();
  for (let index = 0; index < calls; index++) await model.generate(request);
  const modelMicros = ((performance.now() - start) * 1000) / calls;

  const events: unknown[] = [];
  const caller = createModelCaller({
    settingsLlm: { provider: 'scripted', scripted: Array.from({ length: calls }, (_, index) => `answer ${index}`) },
    signal: new AbortController().signal,
    emit: (type, data) => void events.push({ type, data }),
    budget: { beforeLlmCall: () => undefined, afterLlmCall: () => undefined },
    capturePayloads: false,
  });
  start = performance.now();
  for (let index = 0; index < calls; index++) await caller.call({ prompt: 'hello' });
  const callerMicros = ((performance.now() - start) * 1000) / calls;
  return { model: modelMicros, caller: callerMicros };
}

function median(values: number[]): number {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((left, right) => left - right);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
