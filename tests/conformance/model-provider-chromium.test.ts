/**
 * The OpenAI-compatible client runs the ModelProvider conformance suite inside Chromium: the real
 * client, bundled into a page on one origin, calls the mock server on another (cross-origin, as
 * the web demo calls a local model) with the browser's fetch, streams, timers and AbortSignal.
 * Each line the page produces is handed to Node as it is produced.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';
import { chromiumAvailable, launchChromium } from '../browser/support/chromium.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { loadTranscripts, startTranscriptServer, type TranscriptServer } from '../support/transcript-server.js';
import { serveScriptPage, type ScriptPage } from '../support/serve-script-page.js';
import { armMock, deadEndpoint } from './model-provider-backends.js';
import { describeModelProviderConformance } from '../../src/testing/model-provider-conformance.js';
import { describeTranscripts } from './model-provider-transcripts.js';
import { remoteProvider, type RemoteTransport } from './support/remote-provider.js';
import type { RemoteLine } from './support/remote-runner.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PAGE_SCRIPT = `
import { abortCall, runCall } from ${JSON.stringify(path.join(HERE, 'support/remote-runner.ts'))};
const stopped = new Set();
globalThis.runner = {
  async start(call) {
    for await (const line of runCall(call)) {
      if (stopped.delete(call.id)) break;
      await globalThis.emitLine(call.id, line);
    }
    await globalThis.emitLine(call.id, null);
  },
  stop: (id) => void stopped.add(id),
  abort: (id) => abortCall(id),
};
`;

/** Lines per call, waiting for the page. */
const channels = new Map<string, { lines: (RemoteLine | null)[]; wake?: () => void }>();
let browser: Browser;
let page: Page;
let site: ScriptPage;
let server: MockOpenAI;
let deadUrl: string;
let transcriptServer: TranscriptServer;

const transport: RemoteTransport = {
  async *open(call) {
    const channel: { lines: (RemoteLine | null)[]; wake?: () => void } = { lines: [] };
    channels.set(call.id, channel);
    // The page may still be finishing a call (a slow one) when the browser closes.
    void page.evaluate((remote) => (globalThis as any).runner.start(remote), call).catch(() => undefined);
    try {
      for (;;) {
        if (channel.lines.length === 0) await new Promise<void>((resolve) => (channel.wake = resolve));
        const line = channel.lines.shift()!;
        if (line === null) return;
        yield line;
      }
    } finally {
      channels.delete(call.id);
      await page.evaluate((id) => (globalThis as any).runner.stop(id), call.id).catch(() => undefined);
    }
  },
  async abort(id) {
    await page.evaluate((callId) => (globalThis as any).runner.abort(callId), id);
  },
};

describe.skipIf(!chromiumAvailable())('in Chromium', () => {
  beforeAll(async () => {
    site = await serveScriptPage(PAGE_SCRIPT, HERE);
    [server, browser, deadUrl, transcriptServer] = await Promise.all([
      startMockOpenAI({ chunkSize: 3 }),
      launchChromium(),
      deadEndpoint(),
      startTranscriptServer(),
    ]);
    page = await browser.newPage();
    await page.exposeFunction('emitLine', (id: string, line: RemoteLine | null) => {
      const channel = channels.get(id);
      if (channel === undefined) return;
      channel.lines.push(line);
      channel.wake?.();
    });
    await page.goto(site.url);
    await page.waitForFunction(() => (globalThis as { runner?: unknown }).runner !== undefined);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await site?.close();
    await transcriptServer?.close();
  });

  describeModelProviderConformance(
    'OpenAI-compatible client (Chromium)',
    async (scenario) => {
      const provider = remoteProvider(transport, armMock(server, deadUrl, scenario));
      return { provider, attempts: () => server.chatRequests.length };
    },
    { features: ['retries', 'abortInFlight'] },
  );

  describeTranscripts('OpenAI-compatible client (Chromium)', loadTranscripts(), async (named, cut) => {
    const apiBase = transcriptServer.apiBase(named.name, cut);
    const provider = remoteProvider(transport, {
      api_base: apiBase,
      max_retries: named.transcript.request.max_retries ?? 2,
      timeout_ms: 10_000,
    });
    return { provider, attempts: () => transcriptServer.attempts(apiBase) };
  });
});
