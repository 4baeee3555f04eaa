/** The CLI contract (ARCHITECTURE.md): outputs and exit codes, through the built bin. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runCli as cli } from '../support/run-cli.js';
import { describe, expect, it } from 'vitest';

function agentFile(text: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'tea-cli-'));
  const file = path.join(directory, 'agent.yaml');
  writeFileSync(file, text);
  return file;
}

describe('tea-edge CLI', () => {
  it('run prints the final state and exits 0', async () => {
    const result = await cli(['run', 'tests/agents/lua-chain.yaml', '--input', '{"name":"Ada","items":[1,2]}']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ message: 'Hello, Ada', sum: 3 });
  });

  it('run --stream prints NDJSON events ending with done', async () => {
    const result = await cli(['run', 'tests/agents/goto-loop.yaml', '--input', '{"needed":2}', '--stream']);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events[0].type).toBe('run_start');
    expect(events.at(-1).type).toBe('done');
    expect(events.at(-1).data.state.summary).toBe('done after 2');
  });

  it('--input-file reads the input', async () => {
    const inputFile = path.join(mkdtempSync(path.join(tmpdir(), 'tea-in-')), 'in.json');
    writeFileSync(inputFile, '{"name":"Bo","items":[5]}');
    const result = await cli(['run', 'tests/agents/lua-chain.yaml', '--input-file', inputFile]);
    expect(JSON.parse(result.stdout).sum).toBe(5);
  });

  it('a failed run exits 1 with code, node and message on stderr', async () => {
    const result = await cli(['run', agentFile('nodes:\n  - name: boom\n    run: error("kaput")\n')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/LUA_ERROR node=boom .*kaput/);
  });

  it('a failed run names the place in the agent file when the error has one (a Lua line)', async () => {
    const result = await cli([
      'run',
      agentFile('nodes:\n  - name: boom\n    run: |\n      local t = nil\n      return t.x\n'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^LUA_ERROR node=boom field=run \S*agent\.yaml:5: .*nil value/);
  });

  it('an invalid agent exits 2 with file:line:column', async () => {
    const file = agentFile('nodes:\n  - name: a\n    goto: nowhere\n');
    const result = await cli(['run', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/agent\.yaml:3:\d+ INVALID_AGENT/);
  });

  it('bad usage exits 2', async () => {
    expect((await cli(['run'])).code).toBe(2);
    expect((await cli(['run', 'tests/agents/lua-chain.yaml', '--input', 'not json'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
  });

  it('validate prints ok or file:line:column code message', async () => {
    const ok = await cli(['validate', 'tests/agents/edges-parallel.yaml']);
    expect(ok.code).toBe(0);
    expect(ok.stdout.trim()).toBe('ok');
    const bad = await cli(['validate', agentFile('nodes:\n  - name: a\n    uses: llm.cal\n')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/agent\.yaml:3:\d+ UNKNOWN_ACTION .*llm\.call/);
  });

  it('interrupt exits 3, resume from a later process finishes the run', async () => {
    const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-traces-'));
    const first = await cli([
      'run',
      'tests/agents/interrupt-before.yaml',
      '--input',
      '{"who":"you"}',
      '--trace-dir',
      traceDir,
    ]);
    expect(first.code).toBe(3);
    const paused = JSON.parse(first.stdout);
    expect(paused).toMatchObject({
      status: 'interrupted',
      waiting_for: { kind: 'interrupt', node: 'publish', position: 'before' },
    });
    const resumed = await cli(['resume', paused.run_id, '--trace-dir', traceDir, '--state-update', '{"extra":1}']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ who: 'you', draft: 'Hello you', extra: 1, published: true });
    const again = await cli(['resume', paused.run_id, '--trace-dir', traceDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/CONFLICT/);
  });

  it('--llm-* flags and TEA_LLM_* variables override every endpoint; the key never appears in output', async () => {
    const file = agentFile(
      'settings:\n  llm:\n    provider: ollama\n    model: m\n    max_retries: 0\nnodes:\n  - name: ask\n    uses: llm.call\n    with:\n      prompt: hi\n',
    );
    const result = await cli(['run', file, '--llm-base-url', 'http://127.0.0.1:9/v1', '--stream'], {
      TEA_LLM_API_KEY: 'sk-canary-cli-123456',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/LLM_UNAVAILABLE/);
    expect(result.stdout + result.stderr).not.toContain('sk-canary-cli-123456');
    expect(result.stdout + result.stderr).toContain('127.0.0.1:9');
  });
});
