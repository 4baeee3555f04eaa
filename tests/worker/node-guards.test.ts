/**
 * `tea-edge serve` (worker/node/node.ts) over real HTTP against what a web page can send: a DNS-rebound
 * Host (static files included), a simple cross-site POST, a foreign Origin; and a directory of
 * broken agents reported whole, every problem of every file.
 */
import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../worker/node/node.js';

let directory: string;
let server: RunningServer;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'tea-edge-guards-'));
  const webDemo = path.join(directory, 'web');
  await mkdir(webDemo);
  await writeFile(path.join(webDemo, 'index.html'), '<!doctype html><title>tea-edge demo</title>');
  server = await serve({ port: 0, agentsDir: path.join(import.meta.dirname, 'agents'), traceDir: path.join(directory, 'traces'), webDemoDir: webDemo });
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

/** A raw HTTP request, so any Host header can be sent. */
function raw(options: { method?: string; path: string; host: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { hostname: '127.0.0.1', port: server.port, method: options.method ?? 'GET', path: options.path, headers: { host: options.host, ...options.headers }, setHost: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => (body += piece));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('serve on loopback: DNS rebinding', () => {
  it('answers loopback Host headers with its port only, static files included', async () => {
    const port = server.port;
    const refused = [`rebind.attacker.example:${port}`, `localhost:${port + 1}`, 'localhost', `127.0.0.1.nip.io:${port}`, `localtest.me:${port}`, `0.0.0.0:${port}`, `[::ffff:127.0.0.1]:${port}`, `127.1:${port}`];
    for (const host of refused) {
      for (const route of ['/', '/index.html', '/health', '/agents']) {
        const response = await raw({ path: route, host });
        // @hono/node-server itself answers 400 to a Host it cannot make a URL of.
        expect({ host, route, refused: [400, 403].includes(response.status) }).toEqual({ host, route, refused: true });
        if (response.status === 403) expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN');
      }
      const post = await raw({ method: 'POST', path: '/agents/counter/runs', host, headers: { 'content-type': 'application/json' }, body: '{}' });
      expect([400, 403]).toContain(post.status);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      expect((await raw({ path: '/health', host })).status).toBe(200);
      expect((await raw({ path: '/', host })).body).toContain('tea-edge demo');
    }
  });
});

describe('serve: pages of other origins', () => {
  it('refuses a text/plain or form POST (what a page sends without a preflight) and a foreign Origin', async () => {
    const host = `127.0.0.1:${server.port}`;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const response = await raw({ method: 'POST', path: '/agents/counter/runs', host, headers: { 'content-type': type }, body: '{"input":{}}' });
      expect({ type, status: response.status }).toEqual({ type, status: 415 });
    }
    const foreign = await raw({ method: 'POST', path: '/agents/counter/runs', host, headers: { 'content-type': 'application/json', origin: 'https://attacker.example' }, body: '{}' });
    expect(foreign.status).toBe(403);
    const own = await raw({ method: 'POST', path: '/agents/counter/runs', host, headers: { 'content-type': 'application/json', origin: `http://${host}` }, body: '{}' });
    expect(JSON.parse(own.body).status).toBe('interrupted');
  });
});

describe('serve --agents with broken agents', () => {
  it('rejects with every problem of every broken file in details.errors', async () => {
    const agents = path.join(directory, 'broken');
    await mkdir(agents);
    await writeFile(path.join(agents, 'a-good.yaml'), 'name: good\nnodes:\n  - name: a\n    run: return {}\n');
    await writeFile(path.join(agents, 'b-bad.yaml'), 'name: bad\nnodes:\n  - name: a\n    uses: no.such.action\n');
    await writeFile(path.join(agents, 'c-worse.yaml'), 'name: worse\nnodes: [\n');
    await writeFile(path.join(agents, 'd-lua.yaml'), 'name: lua\nnodes:\n  - name: a\n    run: "return {"\n');
    const failure = await serve({ port: 0, agentsDir: agents, traceDir: path.join(directory, 'broken-traces') }).then(
      () => undefined,
      (error: unknown) => error as { code: string; message: string; details: { errors?: Array<{ file: string; code: string; message: string }> } },
    );
    expect(failure).toBeDefined();
    const errors = failure!.details.errors ?? [];
    const files = [...new Set(errors.map((problem) => path.basename(problem.file)))];
    expect(files).toEqual(['b-bad.yaml', 'c-worse.yaml', 'd-lua.yaml']);
    expect(failure!.message).toContain(errors[0]!.message);
    for (const problem of errors) expect(problem.message).not.toMatch(/^[^ ]*\.yaml:\d/);
  });
});
