/**
 * Serves the real-server transcripts (tests/conformance/transcripts/) over HTTP on 127.0.0.1, byte
 * for byte and write by write. The case is chosen by the path, so any runtime's client can reach it
 * with just an `api_base`: `/t/<server>/<case>/<cut>/<run>/v1` (cut `0`: the transcript's own
 * writes; `<run>` keeps the attempt count of each test apart). The n-th request of a run gets the
 * transcript's n-th response (the last one repeats). `GET /transcripts` lists the cases (for the
 * Deno runner), `GET /attempts/<key>` says how many requests a run made. CORS is allowed, for the
 * Chromium runner's page on another origin.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkTranscript,
  transcriptWrites,
  type NamedTranscript,
  type TranscriptResponse,
} from '../conformance/model-provider-transcripts.js';

/** The folder of transcript files. */
export const TRANSCRIPTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../conformance/transcripts');

/** Every transcript under the folder, checked, sorted by name. */
export function loadTranscripts(directory = TRANSCRIPTS_DIR): NamedTranscript[] {
  const named: NamedTranscript[] = [];
  for (const server of readdirSync(directory, { withFileTypes: true })) {
    if (!server.isDirectory()) continue;
    for (const file of readdirSync(path.join(directory, server.name))) {
      if (!file.endsWith('.json')) continue;
      const name = `${server.name}/${file.slice(0, -'.json'.length)}`;
      named.push({
        name,
        transcript: checkTranscript(JSON.parse(readFileSync(path.join(directory, server.name, file), 'utf8')), name),
      });
    }
  }
  return named.sort((left, right) => left.name.localeCompare(right.name));
}

export interface TranscriptServer {
  url: string;
  /** The api_base of one run of a case. */
  apiBase(name: string, cut: number | undefined): string;
  /** Requests made by the run whose api_base is given. */
  attempts(apiBase: string): number;
  close(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startTranscriptServer(
  transcripts: NamedTranscript[] = loadTranscripts(),
): Promise<TranscriptServer> {
  const byName = new Map(transcripts.map((named) => [named.name, named.transcript]));
  const counts = new Map<string, number>();
  let runs = 0;

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    // Browsers call from another origin (the Chromium runner), as the web demo calls a local model.
    response.setHeader('access-control-allow-origin', '*');
    if (request.method === 'OPTIONS') {
      response
        .writeHead(204, {
          'access-control-allow-methods': 'GET, POST',
          'access-control-allow-headers': 'content-type, authorization',
          'access-control-max-age': '600',
        })
        .end();
      return;
    }
    if (request.method === 'GET' && url.pathname === '/transcripts') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(transcripts));
      return;
    }
    if (request.method === 'GET' && url.pathname.startsWith('/attempts/')) {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(String(counts.get(decodeURIComponent(url.pathname.slice('/attempts/'.length))) ?? 0));
      return;
    }
    const match = /^\/t\/([^/]+\/[^/]+)\/(\d+)\/([^/]+)\/v1\//.exec(url.pathname);
    const transcript = match === null ? undefined : byName.get(match[1]!);
    if (match === null || transcript === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`transcript-server: no case at ${url.pathname}`);
      return;
    }
    const key = `${match[1]}/${match[2]}/${match[3]}`;
    const attempt = counts.get(key) ?? 0;
    counts.set(key, attempt + 1);
    const body = await readBody(request);
    const stream = (JSON.parse(body) as { stream?: unknown }).stream === true;
    if (stream !== transcript.request.stream) {
      response
        .writeHead(418, { 'content-type': 'text/plain' })
        .end(
          `transcript-server: ${match[1]} answers stream=${transcript.request.stream}, the client asked stream=${stream}`,
        );
      return;
    }
    const cut = Number(match[2]) === 0 ? undefined : Number(match[2]);
    await play(transcript.responses[Math.min(attempt, transcript.responses.length - 1)]!, response, cut);
  }

  async function play(recorded: TranscriptResponse, response: ServerResponse, cut: number | undefined): Promise<void> {
    if (recorded.drop === 'before_headers') {
      response.socket?.destroy();
      return;
    }
    response.socket?.setNoDelay(true);
    const headers = { ...(recorded.headers ?? {}) };
    if (recorded.body !== undefined) {
      const text = typeof recorded.body === 'string' ? recorded.body : JSON.stringify(recorded.body);
      headers['content-length'] = String(Buffer.byteLength(text));
      response.writeHead(recorded.status ?? 200, headers).end(text);
      return;
    }
    response.writeHead(recorded.status ?? 200, headers);
    response.flushHeaders();
    for (const piece of transcriptWrites(recorded, cut)) {
      if (response.destroyed) return;
      if (!response.write(piece)) await new Promise((resolve) => response.once('drain', resolve));
      // The transcript's own writes leave the server one by one; a re-cut may coalesce, as TCP does.
      await (cut === undefined ? pause(1) : new Promise((resolve) => setImmediate(resolve)));
    }
    if (recorded.drop === 'after_writes') response.socket?.destroy();
    else response.end();
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`transcript-server: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiBase(name, cut) {
      runs++;
      return `${url}/t/${name}/${cut ?? 0}/run${runs}/v1`;
    },
    attempts(apiBase) {
      const match = /\/t\/(.+)\/v1$/.exec(apiBase);
      return match === null ? 0 : (counts.get(match[1]!) ?? 0);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
