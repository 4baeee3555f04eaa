/**
 * http.get inside workerd (Miniflare): the allow-list, manual redirects with re-checks, and the
 * body cap behave as in Node. The worker calls a server on 127.0.0.1 that the agent allows.
 */
import * as esbuild from 'esbuild';
import { Miniflare } from 'miniflare';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM build helper without types
import { baseOptions } from '../../build/shared.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

const ENTRY = `import { httpGet } from './src/tools/http-get.ts';
export default {
  async fetch(request) {
    const { url, http } = await request.json();
    const context = { settings: { http }, signal: new AbortController().signal };
    try {
      return Response.json({ ok: true, result: await httpGet().run({ url }, context) });
    } catch (error) {
      return Response.json({ ok: false, code: error.code ?? null, message: String(error.message) });
    }
  },
};`;

describe('http.get in workerd', () => {
  let server: Server;
  let origin = '';
  let miniflare: Miniflare;
  let hits = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      if (request.url === '/redirect-ok') return void response.writeHead(302, { location: '/hello' }).end();
      if (request.url === '/redirect-out')
        return void response.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (request.url === '/big') return void response.writeHead(200).end('z'.repeat(50_000));
      response.writeHead(200, { 'content-type': 'text/plain' }).end('hello from node');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const bundle = await esbuild.build(
      baseOptions({
        stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'http-get-worker.ts', loader: 'ts' },
        platform: 'browser',
        write: false,
      }),
    );
    miniflare = new Miniflare({ modules: true, script: bundle.outputFiles![0]!.text, compatibilityDate: '2026-05-01' });
  });
  afterAll(async () => {
    await miniflare?.dispose();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const call = async (url: string, http: Record<string, unknown>) => {
    const response = await miniflare.dispatchFetch('http://worker.test/', {
      method: 'POST',
      body: JSON.stringify({ url, http }),
    });
    return (await response.json()) as Record<string, unknown>;
  };

  it('fetches an allowed origin and follows an allowed redirect', async () => {
    expect(await call(`${origin}/hello`, { allow: [origin] })).toMatchObject({
      ok: true,
      result: { status: 200, body: 'hello from node' },
    });
    expect(await call(`${origin}/redirect-ok`, { allow: [origin] })).toMatchObject({
      ok: true,
      result: { body: 'hello from node' },
    });
  });

  it('refuses unlisted origins before connecting, and re-checks redirects', async () => {
    const before = hits;
    expect(await call(`${origin}/hello`, {})).toMatchObject({ ok: false, code: 'FORBIDDEN' });
    expect(await call('http://169.254.169.254/latest', { allow: [origin] })).toMatchObject({
      ok: false,
      code: 'FORBIDDEN',
    });
    expect(hits).toBe(before);
    expect(await call(`${origin}/redirect-out`, { allow: [origin] })).toMatchObject({ ok: false, code: 'FORBIDDEN' });
  });

  it('caps the body', async () => {
    expect(await call(`${origin}/big`, { allow: [origin], max_bytes: 100 })).toMatchObject({
      ok: true,
      result: { truncated: true },
    });
  });
});
