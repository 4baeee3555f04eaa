/**
 * The OpenAI-compatible client runs the ModelProvider conformance suite inside workerd: the real
 * client, bundled into a module worker in Miniflare, calls the mock server on 127.0.0.1 through
 * the worker's outbound fetch, with workerd's timers, streams and AbortSignal. Each call is one
 * request to the worker, answered with newline-delimited JSON as the client produces it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { loadTranscripts, startTranscriptServer, type TranscriptServer } from '../support/transcript-server.js';
import { armMock, deadEndpoint } from './model-provider-backends.js';
import { describeModelProviderConformance } from '../../src/testing/model-provider-conformance.js';
import { describeTranscripts } from './model-provider-transcripts.js';
import { ndjson, remoteProvider, type RemoteTransport } from './support/remote-provider.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WORKER = `
import { abortCall, runCall } from ${JSON.stringify(path.join(HERE, 'support/remote-runner.ts'))};
const encoder = new TextEncoder();
export default {
  async fetch(request) {
    if (new URL(request.url).pathname === '/abort') {
      abortCall(await request.text());
      return new Response('ok');
    }
    const lines = runCall(await request.json());
    const body = new ReadableStream({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(JSON.stringify(next.value) + '\\n'));
      },
      async cancel() {
        await lines.return(undefined);
      },
    });
    return new Response(body, { headers: { 'content-type': 'application/x-ndjson' } });
  },
};
`;

let miniflare: Miniflare;
let server: MockOpenAI;
let deadUrl: string;
let transcriptServer: TranscriptServer;

const transport: RemoteTransport = {
  async *open(call) {
    const response = await miniflare.dispatchFetch('http://runner.test/call', {
      method: 'POST',
      body: JSON.stringify(call),
    });
    yield* ndjson(response.body as unknown as ReadableStream<Uint8Array>);
  },
  async abort(id) {
    const response = await miniflare.dispatchFetch('http://runner.test/abort', { method: 'POST', body: id });
    if (!response.ok) throw new Error(`the worker refused the abort: ${await response.text()}`);
  },
};

beforeAll(async () => {
  server = await startMockOpenAI({ chunkSize: 3 });
  deadUrl = await deadEndpoint();
  transcriptServer = await startTranscriptServer();
  const bundle = await esbuild.build({
    stdin: { contents: WORKER, resolveDir: HERE, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'warning',
  });
  miniflare = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2026-05-01' });
  await miniflare.ready;
});
afterAll(async () => {
  await miniflare?.dispose();
  await server?.close();
  await transcriptServer?.close();
});

describeModelProviderConformance(
  'OpenAI-compatible client (workerd)',
  async (scenario) => {
    const provider = remoteProvider(transport, armMock(server, deadUrl, scenario));
    return { provider, attempts: () => server.chatRequests.length };
  },
  { features: ['retries', 'abortInFlight'] },
);

describeTranscripts('OpenAI-compatible client (workerd)', loadTranscripts(), async (named, cut) => {
  const apiBase = transcriptServer.apiBase(named.name, cut);
  const provider = remoteProvider(transport, {
    api_base: apiBase,
    max_retries: named.transcript.request.max_retries ?? 2,
    timeout_ms: 10_000,
  });
  return { provider, attempts: () => transcriptServer.attempts(apiBase) };
});
