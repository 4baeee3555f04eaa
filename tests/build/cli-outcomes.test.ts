/**
 * One outcome everywhere, seen from `npx tea-edge run`: a model server that is down, answers 404
 * or 500, or hangs mid-stream makes the run fail with exit 1, ONE stderr line naming the LLM_* code
 * and the node, `status: failed` in the run record and in the `done` event. Plus the default
 * model-call budget, and terminal-safe, capped output for hostile text.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { closedModelUrl } from '../support/closed-port.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsStores } from '../../adapters/fs/index.js';
import { loadErrorLines } from '../../cli/commands/load-error-lines.js';
import { AgentError } from '../../src/core/agent-error.js';
import { startMockOpenAI, type MockFault } from '../support/mock-openai-server.js';
import { runCli as cli } from '../support/run-cli.js';

/** No TEA_LLM_* from the developer's shell may change where these runs go. */
const CLEAN_ENV = { TEA_LLM_BASE_URL: '', TEA_LLM_MODEL: '', TEA_LLM_API_KEY: '', TEA_LLM_PROVIDER: '' };

function agentFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-outcome-')), 'agent.yaml');
  writeFileSync(file, text);
  return file;
}

const llmAgent = (uses = 'llm.call', llm = 'max_retries: 1') =>
  agentFile(
    `name: ask-model\nsettings:\n  llm: { model: mock-model, ${llm} }\nnodes:\n  - name: ask\n    uses: ${uses}\n    with: { prompt: "Hello?" }\n    output: answer\n`,
  );

/** Runs the agent with --stream and --trace-dir; returns the outcome, the done event and the stored record. */
async function failingRun(file: string, baseUrl: string) {
  const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-outcome-traces-'));
  const result = await cli(['run', file, '--llm-base-url', baseUrl, '--trace-dir', traceDir, '--stream'], CLEAN_ENV);
  const events = result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const done = events.at(-1);
  const record = await createFsStores(traceDir).traceStore.getRun(done?.run_id);
  return { result, done, record };
}

function expectOneFailureLine(stderr: string, code: RegExp, node: string): void {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(code);
  expect(lines[0]).toContain(`node=${node}`);
  expect(lines[0]).toMatch(/\(run [0-9a-f-]{36}, stop reason error\)$/);
}

describe('a failed model call fails the CLI run', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('nothing listening: exit 1, LLM_UNAVAILABLE node=ask, status failed in the record and done', {
    timeout: 30_000,
  }, async () => {
    const { result, done, record } = await failingRun(llmAgent(), await closedModelUrl());
    expect(result.code).toBe(1);
    expectOneFailureLine(result.stderr, /^LLM_UNAVAILABLE /, 'ask');
    expect(done).toMatchObject({
      type: 'done',
      data: { status: 'failed', stop_reason: 'error', error: { code: 'LLM_UNAVAILABLE', node: 'ask' } },
    });
    expect(record).toMatchObject({ status: 'failed', stop_reason: 'error', error: { code: 'LLM_UNAVAILABLE' } });
  });

  const faults: { name: string; fault: MockFault; code: RegExp; uses?: string; llm?: string }[] = [
    {
      name: '404 for a missing model',
      fault: { type: 'status', status: 404, body: '{"error":{"message":"model \\"mock-model\\" not found"}}' },
      code: /^LLM_HTTP_404 /,
    },
    { name: '500 on every call', fault: { type: 'status', status: 500, retryAfter: '0' }, code: /^LLM_HTTP_500 / },
    {
      name: 'a hung stream (timeout 1 s)',
      fault: { type: 'delay', ms: 20_000 },
      code: /^LLM_TIMEOUT /,
      uses: 'llm.stream',
      llm: 'timeout: 1, max_retries: 0',
    },
  ];
  for (const { name, fault, code, uses, llm } of faults) {
    it(`${name}: exit 1, one stderr line with the code and node, status failed`, { timeout: 30_000 }, async () => {
      const server = await startMockOpenAI({ replies: ['never used'] });
      close = () => server.close();
      server.setFault(fault);
      const { result, done, record } = await failingRun(llmAgent(uses, llm), server.url);
      expect(result.code).toBe(1);
      expectOneFailureLine(result.stderr, code, 'ask');
      expect(done.data.status).toBe('failed');
      expect(done.data.error.code).toMatch(code.source.slice(1, -1));
      expect(record?.status).toBe('failed');
    });
  }

  it('a stream that stops sending mid-answer is LLM_TIMEOUT too', { timeout: 30_000 }, async () => {
    const server = await startMockOpenAI({
      replies: ['a long answer that never finishes'],
      chunkSize: 2,
      chunkDelayMs: 20_000,
    });
    close = () => server.close();
    const { result, done } = await failingRun(llmAgent('llm.stream', 'timeout: 1, max_retries: 0'), server.url);
    expect(result.code).toBe(1);
    expectOneFailureLine(result.stderr, /^LLM_TIMEOUT /, 'ask');
    expect(done.data.status).toBe('failed');
  });
});

describe('a failed resume', () => {
  it('exits 1 with the same one line and a failed record', { timeout: 30_000 }, async () => {
    const file = agentFile(
      'name: paused\nconfig:\n  interrupt_before: [ask]\nsettings:\n  llm: { model: m, max_retries: 0 }\nnodes:\n  - { name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer }\n',
    );
    const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-outcome-resume-'));
    const first = await cli(
      ['run', file, '--llm-base-url', await closedModelUrl(), '--trace-dir', traceDir],
      CLEAN_ENV,
    );
    expect(first.code).toBe(3);
    const runId = JSON.parse(first.stdout).run_id;
    const resumed = await cli(['resume', runId, '--trace-dir', traceDir, '--stream'], CLEAN_ENV);
    expect(resumed.code).toBe(1);
    expectOneFailureLine(resumed.stderr, /^LLM_UNAVAILABLE /, 'ask');
    const done = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!);
    expect(done.data).toMatchObject({ status: 'failed', stop_reason: 'error', error: { code: 'LLM_UNAVAILABLE' } });
    expect(await createFsStores(traceDir).traceStore.getRun(runId)).toMatchObject({ status: 'failed' });
  });
});

describe('spending is bounded by default', () => {
  const looping = () =>
    agentFile(
      'name: loop\nsettings:\n  llm: { provider: scripted, scripted: [{ default: "again" }] }\nnodes:\n  - { name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer, goto: ask }\n',
    );

  it('a looping agent stops at 100 model calls, naming the budget on stderr and in done', {
    timeout: 30_000,
  }, async () => {
    const result = await cli(['run', looping(), '--stream'], CLEAN_ENV);
    expect(result.code).toBe(1);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(100);
    expect(events.at(-1).data).toMatchObject({
      status: 'failed',
      stop_reason: 'max_llm_calls',
      error: { code: 'BUDGET_EXCEEDED', details: { budget: 'max_llm_calls' } },
    });
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^BUDGET_EXCEEDED node=ask .*max_llm_calls.*stop reason max_llm_calls\)$/m);
  });

  it('--max-llm-calls N sets the budget; a bad N is a usage error', { timeout: 30_000 }, async () => {
    const result = await cli(['run', looping(), '--stream', '--max-llm-calls', '7'], CLEAN_ENV);
    expect(result.code).toBe(1);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === 'llm_request')).toHaveLength(7);
    for (const bad of ['0', 'many', '1e3', '20000']) {
      const refused = await cli(['run', looping(), '--max-llm-calls', bad], CLEAN_ENV);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--max-llm-calls must be a whole number/);
    }
  });
});

describe('hostile text reaches the terminal escaped and capped', () => {
  it('terminal escapes and forged newlines in a Lua error stay on one visible line', async () => {
    const file = agentFile(
      'nodes:\n  - name: boom\n    run: error("bad\\27]0;pwned\\7\\27[2J\\nINTERNAL node=other forged line\\r\\194\\155")\n',
    );
    const result = await cli(['run', file]);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stderr).toContain('\\x1b[2J');
    expect(result.stderr).toContain('\\nINTERNAL node=other forged line');
  });

  it('an action name with an escape and a newline cannot forge a load-error line', async () => {
    const result = await cli(['run', agentFile('nodes:\n  - name: a\n    uses: "x\\e[31mred\\nINTERNAL forged"\n')]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toMatch(/UNKNOWN_ACTION .*x\\x1b\[31mred\\nINTERNAL forged/);
  });

  it('every problem of a load-error list is one escaped line', () => {
    const error = new AgentError('INVALID_AGENT', 'first', {
      file: 'a.yaml',
      line: 2,
      details: {
        errors: [
          { code: 'INVALID_AGENT', message: 'first', file: 'a.yaml', line: 2, column: 3 },
          { code: 'UNKNOWN_ACTION', message: 'bad\nforged', file: 'a.yaml', line: 9, column: 1 },
        ],
      },
    });
    expect(loadErrorLines(error, 'a.yaml')).toBe(
      'a.yaml:2:3 INVALID_AGENT first\na.yaml:9:1 UNKNOWN_ACTION bad\\nforged\n',
    );
  });

  it('control characters in the final state are JSON escapes that parse back to the same text', async () => {
    const file = agentFile('nodes:\n  - name: a\n    run: return { s = "x\\194\\155y\\226\\128\\174z" }\n');
    const result = await cli(['run', file]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(JSON.parse(result.stdout).s).toBe('x\u009by\u202ez');
  });

  it('the host API key never reaches stdout or stderr, even copied into state or an error', async () => {
    const key = 'sk-host-key-copied-777';
    const copied = agentFile(`nodes:\n  - name: a\n    run: return { leak = "key=${key}" }\n`);
    const result = await cli(['run', copied, '--llm-api-key', key]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(key);
    expect(JSON.parse(result.stdout).leak).toBe('key=[REDACTED]');
    const failing = agentFile(`nodes:\n  - name: a\n    run: error("key=${key}")\n`);
    const failed = await cli(['run', failing], { ...CLEAN_ENV, TEA_LLM_API_KEY: key });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/key=\[REDACTED\]/);
  });

  it('a 1 MB Lua error is capped on stderr and in record.json', { timeout: 30_000 }, async () => {
    const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-outcome-big-'));
    const file = agentFile('nodes:\n  - name: boom\n    run: error(string.rep("A", 1000000))\n');
    const result = await cli(['run', file, '--trace-dir', traceDir]);
    expect(result.code).toBe(1);
    expect(result.stderr.length).toBeLessThanOrEqual(2001);
    expect(result.stderr).toMatch(/^LUA_ERROR node=boom .*…\[\+\d+ chars\] \(run /);
    const runId = /\(run ([0-9a-f-]{36}),/.exec(result.stderr)![1]!;
    const record = await createFsStores(traceDir).traceStore.getRun(runId);
    expect(record?.status).toBe('failed');
    expect(JSON.stringify(record).length).toBeLessThan(20_000);
    const eventsFile = readFileSync(path.join(traceDir, 'runs', runId, 'events.ndjson'), 'utf8');
    expect(eventsFile.length).toBeLessThan(300_000);
  });
});
