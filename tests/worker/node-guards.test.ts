/**
 * `tea-edge serve` (worker/node/node.ts) over real HTTP against what a web page can send: a DNS-rebound
 * Host (static files included), a simple cross-site POST, a foreign Origin; and a directory with
 * broken agents: the valid ones served, the broken ones listed whole, every problem of every file.
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
  server = await serve({
    port: 0,
    agentsDir: path.join(import.meta.dirname, 'agents'),
    traceDir: path.join(directory, 'traces'),
    webDemoDir: webDemo,
  });
});

afterAll(async () => {
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

/** A raw HTTP request, so any Host header can be sent. */
function raw(options: {
  method?: string;
  path: string;
  host: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname: '127.0.0.1',
        port: server.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { host: options.host, ...options.headers },
        setHost: false,
      },
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
    const refused = [
      `rebind.attacker.example:${port}`,
      `localhost:${port + 1}`,
      'localhost',
      `127.0.0.1.nip.io:${port}`,
      `localtest.me:${port}`,
      `0.0.0.0:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `127.1:${port}`,
    ];
    for (const host of refused) {
      for (const route of ['/', '/index.html', '/health', '/agents']) {
        const response = await raw({ path: route, host });
        // @hono/node-server itself answers 400 to a Host it cannot make a URL of.
        expect({ host, route, refused: [400, 403].includes(response.status) }).toEqual({ host, route, refused: true });
        if (response.status === 403) expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN');
      }
      const post = await raw({
        method: 'POST',
        path: '/agents/counter/runs',
        host,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
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
      const response = await raw({
        method: 'POST',
        path: '/agents/counter/runs',
        host,
        headers: { 'content-type': type },
        body: '{"input":{}}',
      });
      expect({ type, status: response.status }).toEqual({ type, status: 415 });
    }
    const foreign = await raw({
      method: 'POST',
      path: '/agents/counter/runs',
      host,
      headers: { 'content-type': 'application/json', origin: 'https://attacker.example' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
    const own = await raw({
      method: 'POST',
      path: '/agents/counter/runs',
      host,
      headers: { 'content-type': 'application/json', origin: `http://${host}` },
      body: '{}',
    });
    expect(JSON.parse(own.body).status).toBe('interrupted');
  });
});

describe('serve --agents with broken agents', () => {
  it('serves the valid agents and lists each broken file with every problem; a request for one answers 422 naming it', async () => {
    const agents = path.join(directory, 'broken');
    await mkdir(agents);
    await writeFile(
      path.join(agents, 'a-good.yaml'),
      'name: good\ndescription: Works.\nnodes:\n  - name: a\n    run: return {done = true}\n',
    );
    await writeFile(path.join(agents, 'b-bad.yaml'), 'name: bad\nnodes:\n  - name: a\n    uses: no.such.action\n');
    await writeFile(path.join(agents, 'c-worse.yaml'), 'name: worse\nnodes: [\n');
    await writeFile(path.join(agents, 'd-lua.yaml'), 'name: lua\nnodes:\n  - name: a\n    run: "return {"\n');
    // A broken file named like a valid agent is listed under its whole file name.
    await writeFile(path.join(agents, 'good.yaml'), 'name: good2\nnodes: 5\n');
    const broken = await serve({ port: 0, agentsDir: agents, traceDir: path.join(directory, 'broken-traces') });
    try {
      const host = `127.0.0.1:${broken.port}`;
      const get = async (pathname: string, init: { method?: string; body?: string } = {}) => {
        const response = await fetch(`http://${host}${pathname}`, {
          method: init.method ?? 'GET',
          headers: { 'content-type': 'application/json' },
          ...(init.body !== undefined ? { body: init.body } : {}),
        });
        return {
          status: response.status,
          json: (await response.json()) as Record<string, unknown> & Array<Record<string, unknown>>,
        };
      };
      const listed = (await get('/agents')).json as unknown as Array<{
        name: string;
        status: string;
        file?: string;
        errors?: Array<{ code: string; message: string; file: string; line?: number }>;
      }>;
      expect(listed.map((agent) => [agent.name, agent.status, agent.file])).toEqual([
        ['b-bad', 'invalid', 'b-bad.yaml'],
        ['c-worse', 'invalid', 'c-worse.yaml'],
        ['d-lua', 'invalid', 'd-lua.yaml'],
        ['good', 'ready', undefined],
        ['good.yaml', 'invalid', 'good.yaml'],
      ]);
      expect(broken.invalidAgents.map((agent) => agent.name)).toEqual(['b-bad', 'c-worse', 'd-lua', 'good.yaml']);
      const bad = listed.find((agent) => agent.name === 'b-bad')!;
      expect(bad.errors).toEqual([expect.objectContaining({ code: 'UNKNOWN_ACTION', file: 'b-bad.yaml', line: 4 })]);
      for (const agent of listed.filter((one) => one.status === 'invalid')) {
        expect(agent.errors!.length).toBeGreaterThan(0);
        // Named by their place in the agents folder, never the host's path; messages without it.
        for (const problem of agent.errors!) {
          expect(problem.file).toBe(agent.file);
          expect(problem.message).not.toMatch(/^[^ ]*\.yaml:\d/);
        }
      }

      // The valid agent runs, and its file is sent for the studio's source view.
      expect((await get('/agents/good/runs', { method: 'POST', body: '{}' })).json).toMatchObject({
        status: 'completed',
        state: { done: true },
      });
      expect((await get('/agents/good')).json).toMatchObject({
        name: 'good',
        source: expect.stringContaining('description: Works.'),
      });

      // A run of a broken one: 422 INVALID_AGENT naming the file, line and first problem.
      const refused = await get('/agents/b-bad/runs', { method: 'POST', body: '{}' });
      expect(refused.status).toBe(422);
      const error = refused.json.error as { code: string; message: string; file: string; line: number };
      expect(error).toMatchObject({ code: 'INVALID_AGENT', file: 'b-bad.yaml', line: 4 });
      expect(error.message).toMatch(
        /agent 'b-bad' is not served: .*b-bad\.yaml:4:\d+ UNKNOWN_ACTION .*no\.such\.action/,
      );
      expect((await get('/agents/c-worse')).status).toBe(422);
      expect((await get('/agents/nothing-here')).status).toBe(404);

      // Over MCP, only the valid agent is a tool, and calling a broken one is a JSON-RPC error.
      const mcp = (body: unknown) =>
        fetch(`http://${host}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(body),
        }).then(
          (response) =>
            response.json() as Promise<{ result?: { tools: Array<{ name: string }> }; error?: { message: string } }>,
        );
      expect(
        (await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).result?.tools.map((tool) => tool.name),
      ).toEqual(['good']);
      expect(
        (await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b-bad', arguments: {} } })).error
          ?.message,
      ).toMatch(/not served.*UNKNOWN_ACTION/);
    } finally {
      await broken.close();
    }
  });
});
