/**
 * Runs the real-server transcripts (tests/conformance/model-provider-transcripts.ts, the very file
 * vitest runs) against the OpenAI-compatible client inside Deno, with Deno's fetch, streams and
 * timers, over HTTP from the transcript server whose URL is in TRANSCRIPT_SERVER_URL; prints the
 * results as one JSON line. Spawned by tests/deno/deno-transcripts.test.ts:
 *   deno run --allow-net --allow-env --sloppy-imports --import-map tests/deno/import-map.json tests/deno/deno-transcripts.ts
 */
import { createOpenAiClient } from '../../src/llm/openai-client.js';
import { describeTranscripts, type NamedTranscript } from '../conformance/model-provider-transcripts.js';
import { run } from './vitest-shim.js';

declare const Deno: { env: { get(name: string): string | undefined } };

const base = Deno.env.get('TRANSCRIPT_SERVER_URL');
if (base === undefined) throw new Error('TRANSCRIPT_SERVER_URL is not set');
const transcripts = (await (await fetch(`${base}/transcripts`)).json()) as NamedTranscript[];
const fastRetries = { baseDelayMs: 5, maxDelayMs: 20, retryAfterCapMs: 50 };
let runs = 0;

describeTranscripts('OpenAI-compatible client (Deno)', transcripts, async (named, cut) => {
  const key = `${named.name}/${cut ?? 0}/deno${++runs}`;
  const provider = createOpenAiClient(
    { api_base: `${base}/t/${key}/v1`, max_retries: named.transcript.request.max_retries ?? 2, timeout_ms: 10_000 },
    { retryTiming: fastRetries },
  );
  return {
    provider,
    attempts: async () => Number(await (await fetch(`${base}/attempts/${encodeURIComponent(key)}`)).text()),
  };
});

console.log(JSON.stringify({ transcripts: transcripts.length, results: await run() }));
