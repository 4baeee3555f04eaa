// Hostile Lua through the engine (issue 12, points 1, 2, 10): each attack ends the run with a
// typed error, within its budget, without the heap growing by hundreds of megabytes, and the
// error text that reaches the run result is capped.
import { describe, expect, it } from 'vitest';
import { loadAgent } from '../load-agent-with-scripts.js';
import { runAgent } from '../graph/run-agent.js';
import { AgentError } from '../core/agent-error.js';
import { MAX_ERROR_TEXT } from './error-text.js';

const HEAP_GROWTH_LIMIT = 300 * 1024 * 1024;

/** An agent of one Lua node running `code` (indented into the YAML), with optional settings lines. */
function agentYaml(code: string, settings: string[] = []): string {
  return [
    'name: hostile',
    ...settings,
    'nodes:',
    '  - name: attack',
    '    run: |',
    ...code.split('\n').map((line) => `      ${line}`),
  ].join('\n');
}

async function runYaml(yaml: string) {
  const before = process.memoryUsage().heapUsed;
  const run = runAgent(loadAgent(yaml, { file: 'hostile.yaml' }), {});
  for await (const event of run) void event;
  const result = await run.result;
  expect(process.memoryUsage().heapUsed - before).toBeLessThan(HEAP_GROWTH_LIMIT);
  return result;
}

describe('hostile Lua in an agent', () => {
  it('fails a node returning 6,000 references to a 256 KiB string (two levels deep) with LUA_BUDGET', async () => {
    const code =
      'local s = ("r"):rep(256 * 1024)\nlocal row = {}\nfor i = 1, 60 do row[i] = s end\nlocal all = {}\nfor i = 1, 100 do all[i] = { row = row } end\nreturn { all = all }';
    const result = await runYaml(agentYaml(code));
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('LUA_BUDGET');
    expect(result.error?.details?.budget).toBe('string_bytes');
  });

  it('fails json.encode of shared strings swallowed by pcall in a loop with LUA_BUDGET', async () => {
    const code =
      'local s = ("r"):rep(256 * 1024)\nlocal row = {}\nfor i = 1, 6000 do row[i] = s end\nlocal n = 0\nwhile true do\n  local ok = pcall(json.encode, { row })\n  n = n + 1\nend';
    const result = await runYaml(agentYaml(code));
    expect(result.error?.code).toBe('LUA_BUDGET');
  });

  it('fails coroutines parked on string.byte stacks with LUA_BUDGET', async () => {
    const code =
      'local s = ("p"):rep(95000)\nlocal parked = {}\nfor i = 1, 5000 do\n  local co = coroutine.create(function(...) coroutine.yield() end)\n  coroutine.resume(co, string.byte(s, 1, -1))\n  parked[i] = co\nend';
    const result = await runYaml(agentYaml(code, ['settings:', '  lua:', '    instructions: 90000000']));
    expect(result.error?.code).toBe('LUA_BUDGET');
    expect(result.error?.details?.budget).toBe('table_growth');
  });

  it('caps the message of a deeply nested table whose conversion fails', async () => {
    const code =
      'local key = ("k"):rep(30000)\nlocal t = {}\nlocal cur = t\nfor i = 1, 90 do local n = {} cur[key .. i] = n cur = n end\ncur.bad = coroutine.create(print)\nreturn t';
    const result = await runYaml(agentYaml(code));
    expect(result.error?.code).toBe('LUA_ERROR');
    expect(result.error?.message).toContain('thread');
    expect(result.error?.message.length).toBeLessThan(MAX_ERROR_TEXT + 300);
  });

  it('caps a 1 MB error message full of escape sequences in the run result', async () => {
    const result = await runYaml(agentYaml('local part = ("\\27[31m"):rep(1000)\nerror(part:rep(200))'));
    expect(result.error?.code).toBe('LUA_ERROR');
    expect(result.error?.message.length).toBeLessThan(MAX_ERROR_TEXT + 300);
    expect(result.error?.message).toMatch(/cut: \d+ (bytes|characters) in all/);
  });

  it('never runs an endless loop under an instruction budget over the ceiling', async () => {
    const yaml = agentYaml('while true do end', [
      'settings:',
      '  lua:',
      '    instructions: 2000000000',
      '  limits:',
      '    max_duration_ms: 1000',
    ]);
    // Refused at load (INVALID_AGENT) once the loader checks settings.lua; until then the call
    // refuses the budget (INVALID_PARAMS) before any Lua runs.
    let code: string | undefined;
    try {
      code = (await runYaml(yaml)).error?.code;
    } catch (error) {
      if (!AgentError.isInstance(error)) throw error;
      code = error.code;
    }
    expect(['INVALID_AGENT', 'INVALID_PARAMS']).toContain(code);
  });
});
