/** The built-in tools: math.calculate, memory.*, json.query, http.get (against a local server). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateMath } from '../../src/tools/math-expression.js';
import { mathCalculate } from '../../src/tools/math-calculate.js';
import { memoryRetrieve, memoryStore } from '../../src/tools/memory-tools.js';
import { jsonQuery } from '../../src/tools/json-query.js';
import { httpGet } from '../../src/tools/http-get.js';
import { checkUrl, isInternalHost } from '../../src/tools/url-policy.js';
import { createTestActionContext } from '../../src/testing/test-action-context.js';

describe('math.calculate', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ** 3 ** 2', 512],
    ['-2 ** 2', -4],
    ['2 ** -1', 0.5],
    ['10 % 4', 2],
    ['7 / 2', 3.5],
    ['-(-3)', 3],
    ['+4', 4],
    ['1.5e2 + .5', 150.5],
    ['0.1 + 0.2', 0.3],
    ['sqrt(16) + abs(-2)', 6],
    ['min(3, 1, 2) + max(4, 9)', 10],
    ['round(2.567, 2)', 2.57],
    ['round(2.5)', 3],
    ['floor(2.9) + ceil(2.1)', 5],
    ['15 / 100 * 80', 12],
    ['  ( ( 2 ) )  ', 2],
  ])('%s = %s', (expression, expected) => {
    expect(evaluateMath(expression)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['1 / 0', 'division by zero'],
    ['5 % 0', 'modulo by zero'],
    ['sqrt(-1)', 'negative'],
    ['(-8) ** 0.5', 'not a real number'],
    ['10 ** 400', 'finite'],
    ['2 +', 'unexpected end'],
    ['(1 + 2', "expected ')'"],
    ['1 2', 'unexpected'],
    ['alert(1)', 'unknown name'],
    ['constructor', 'unknown name'],
    ['process.exit()', 'unexpected character'],
    ['max()', 'argument'],
    ['sqrt(1, 2)', 'argument'],
    ['2 ^ 3', 'unexpected character'],
    ['"1" + 1', 'unexpected character'],
  ])('%s fails with %s', (expression, message) => {
    const outcome = evaluateMath(expression);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toContain(message);
  });

  it('refuses overlong and too deeply nested expressions', () => {
    expect(evaluateMath('1+'.repeat(600) + '1').ok).toBe(false);
    expect(evaluateMath('('.repeat(200) + '1' + ')'.repeat(200)).ok).toBe(false);
    expect(evaluateMath('-'.repeat(200) + '1').ok).toBe(false);
  });

  it('the tool returns {result} and throws ACTION_FAILED on division by zero', async () => {
    const tool = mathCalculate();
    const context = createTestActionContext();
    expect(await tool.run({ expression: '6 * 7' }, context)).toEqual({ result: 42 });
    // The tool is async (its parser loads on first use): failures are rejections.
    await expect(tool.run({ expression: '1/0' }, context)).rejects.toMatchObject({ code: 'ACTION_FAILED' });
    await expect(tool.run({}, context)).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });
});

describe('memory.store / memory.retrieve', () => {
  it('stores and retrieves JSON values in the run memory; absent keys are null', async () => {
    const context = createTestActionContext();
    const value = { list: [1, 2], name: 'x' };
    expect(await memoryStore().run({ key: 'k', value }, context)).toEqual({ stored: true });
    value.name = 'changed';
    expect(await memoryRetrieve().run({ key: 'k' }, context)).toEqual({ value: { list: [1, 2], name: 'x' } });
    expect(await memoryRetrieve().run({ key: 'missing' }, context)).toEqual({ value: null });
    expect(await memoryRetrieve().run({ key: '__proto__' }, context)).toEqual({ value: null });
  });

  it('refuses bad keys and oversized values', () => {
    const context = createTestActionContext();
    expect(() => memoryStore().run({ key: '', value: 1 }, context)).toThrowError(
      expect.objectContaining({ code: 'INVALID_PARAMS' }),
    );
    expect(() => memoryStore().run({ key: 'k'.repeat(300), value: 1 }, context)).toThrowError(
      expect.objectContaining({ code: 'INPUT_TOO_LARGE' }),
    );
    expect(() => memoryStore().run({ key: 'k', value: 'x'.repeat(70_000) }, context)).toThrowError(
      expect.objectContaining({ code: 'INPUT_TOO_LARGE' }),
    );
    expect(() => memoryStore().run({ key: 'k' }, context)).toThrowError(
      expect.objectContaining({ code: 'INVALID_PARAMS' }),
    );
  });
});

describe('json.query', () => {
  const value = { a: { b: [{ c: 1 }, { c: 2, 'odd key': 'yes' }] }, list: [10, 20, 30] };
  it.each([
    ['a.b[0].c', 1],
    ['$.a.b[1].c', 2],
    ['a.b[1]["odd key"]', 'yes'],
    ['list[-1]', 30],
    ['list.1', 20],
    ['a.b', value.a.b],
  ])('%s', async (path, expected) => {
    expect(await jsonQuery().run({ value, path }, createTestActionContext())).toEqual({
      found: true,
      result: expected,
    });
  });

  it('missing paths give null; prototype keys are refused', async () => {
    const context = createTestActionContext();
    expect(await jsonQuery().run({ value, path: 'a.zzz.c' }, context)).toEqual({ found: false, result: null });
    expect(await jsonQuery().run({ value, path: 'list[9]' }, context)).toEqual({ found: false, result: null });
    expect(await jsonQuery().run({ value, path: 'a.toString' }, context)).toEqual({ found: false, result: null });
    expect(() => jsonQuery().run({ value, path: 'a.constructor' }, context)).toThrowError(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(() => jsonQuery().run({ value, path: '__proto__' }, context)).toThrowError(
      expect.objectContaining({ code: 'FORBIDDEN' }),
    );
    expect(() => jsonQuery().run({ value, path: 'a[' }, context)).toThrowError(
      expect.objectContaining({ code: 'INVALID_PARAMS' }),
    );
  });

  it('parses a value given as a JSON string', async () => {
    expect(await jsonQuery().run({ value: '{"x": {"y": 3}}', path: 'x.y' }, createTestActionContext())).toEqual({
      found: true,
      result: 3,
    });
  });
});

describe('url policy', () => {
  const allow = ['https://api.example.com', 'http://127.0.0.1:8080'];
  it.each([
    ['https://api.example.com/v1?q=1', true],
    ['https://api.example.com:443/x', true],
    ['http://127.0.0.1:8080/ok', true],
    ['http://2130706433:8080/ok', true], // the same listed loopback origin, decimal form
    ['http://api.example.com/x', false], // scheme differs
    ['https://api.example.com:8443/x', false], // port differs
    ['https://evil.api.example.com/x', false],
    ['https://api.example.com.evil.net/x', false],
    ['http://127.0.0.1:8081/x', false],
    ['http://localhost:8080/x', false],
    ['http://169.254.169.254/latest/meta-data', false],
    ['http://[::1]:8080/', false],
    ['http://[::ffff:127.0.0.1]:8080/', false],
    ['http://0x7f.1:8081/', false],
    ['http://0177.0.0.1/', false],
    ['http://10.0.0.1/', false],
    ['http://192.168.1.1/', false],
    ['http://user:pass@api.example.com/', false],
    ['https://user@api.example.com/', false],
    ['file:///etc/passwd', false],
    ['data:text/plain,hi', false],
    ['ftp://api.example.com/', false],
    ['not a url', false],
    ['//api.example.com/x', false],
  ])('%s → allowed %s', (url, allowed) => {
    expect(checkUrl(url, allow).allowed).toBe(allowed);
  });

  it.each([
    ['localhost', true],
    ['app.localhost', true],
    ['127.0.0.1', true],
    ['0.0.0.0', true],
    ['10.1.2.3', true],
    ['100.64.0.1', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['[::]', true],
    ['[::1]', true],
    ['[fd00::1]', true],
    ['[fe80::1]', true],
    ['[::ffff:7f00:1]', true],
    ['[::ffff:a00:1]', true],
    ['[2001:db8::1]', false],
    ['8.8.8.8', false],
    ['example.com', false],
  ])('internal host %s → %s', (host, internal) => {
    expect(isInternalHost(host)).toBe(internal);
  });
});

describe('http.get against a local server', () => {
  let server: Server;
  let origin = '';
  let hits = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits++;
      if (request.url === '/redirect-ok') return void response.writeHead(302, { location: '/hello' }).end();
      if (request.url === '/redirect-out')
        return void response.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (request.url === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
      if (request.url === '/big')
        return void response.writeHead(200, { 'content-type': 'text/plain' }).end('z'.repeat(100_000));
      if (request.url === '/slow') return void setTimeout(() => response.end('late'), 2000);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"hello": "world"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const context = (http: Record<string, unknown>) => createTestActionContext({ settings: { http } });

  it('fetches an explicitly allowed loopback origin', async () => {
    const result = (await httpGet().run({ url: `${origin}/hello` }, context({ allow: [origin] }))) as Record<
      string,
      unknown
    >;
    expect(result).toMatchObject({ status: 200, body: '{"hello": "world"}', truncated: false });
  });

  it('denies when settings.http.allow is missing or does not list the origin, before connecting', async () => {
    const before = hits;
    await expect(httpGet().run({ url: `${origin}/hello` }, context({}))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      httpGet().run({ url: `${origin}/hello` }, context({ allow: ['http://127.0.0.1:1'] })),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      httpGet().run({ url: origin.replace('127.0.0.1', 'localhost') + '/hello' }, context({ allow: [origin] })),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(hits).toBe(before);
  });

  it('follows a redirect to an allowed origin and re-checks a redirect to a denied one', async () => {
    const ok = (await httpGet().run({ url: `${origin}/redirect-ok` }, context({ allow: [origin] }))) as Record<
      string,
      unknown
    >;
    expect(ok['body']).toBe('{"hello": "world"}');
    await expect(httpGet().run({ url: `${origin}/redirect-out` }, context({ allow: [origin] }))).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(httpGet().run({ url: `${origin}/loop` }, context({ allow: [origin] }))).rejects.toMatchObject({
      code: 'ACTION_FAILED',
    });
  });

  it('caps the body size', async () => {
    const result = (await httpGet().run(
      { url: `${origin}/big` },
      context({ allow: [origin], max_bytes: 1000 }),
    )) as Record<string, unknown>;
    expect((result['body'] as string).length).toBe(1000);
    expect(result['truncated']).toBe(true);
  });

  it('times out', async () => {
    await expect(
      httpGet().run({ url: `${origin}/slow` }, context({ allow: [origin], timeout_ms: 100 })),
    ).rejects.toMatchObject({ code: 'ACTION_FAILED' });
  });
});
