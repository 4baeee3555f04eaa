// The Lua sandbox is injected, not imported by the engine: src/graph's loadAgent without
// `scripts` refuses Lua (node bodies and nested Lua, such as a reflection evaluator) with
// SCRIPT_ENGINE_NOT_LOADED; a sandbox the host passes is the one used; the main entry passes Lua.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ScriptSandbox } from '../core/script-sandbox.js';
import { loadAgent as loadAgentWithout } from '../graph/load-agent.js';
import { runAgent } from '../graph/run-agent.js';
import { createActionRegistry, loadAgent } from '../index.js';
import { captureError } from './lua-test-helpers.js';
import { luaSandbox } from './lua-script-sandbox.js';

const LUA_NODE = 'name: calc\nnodes:\n  - name: add\n    run: |\n      return { total = state.a + state.b }\n';
const NO_LUA = 'name: plain\nnodes:\n  - name: nothing\n';
const EVALUATOR = readFileSync(new URL('../../examples/reflection-lua.yaml', import.meta.url), 'utf8');

describe('the script sandbox is passed by the host', () => {
  it('refuses a Lua node with SCRIPT_ENGINE_NOT_LOADED when no sandbox was passed', () => {
    const error = captureError(() => loadAgentWithout(LUA_NODE, { file: 'calc.yaml' }));
    expect(error.code).toBe('SCRIPT_ENGINE_NOT_LOADED');
    expect(error.node).toBe('add');
    expect(error.location.line).toBe(4);
    expect(error.details.errors).toEqual([
      expect.objectContaining({ code: 'SCRIPT_ENGINE_NOT_LOADED', node: 'add', field: 'run' }),
    ]);
  });

  it('refuses nested Lua (a reflection evaluator) the same way', () => {
    const error = captureError(() =>
      loadAgentWithout(EVALUATOR, { file: 'reflection-lua.yaml', registry: createActionRegistry() }),
    );
    const codes = (error.details.errors as Array<{ code: string }>).map((problem) => problem.code);
    expect(codes).toEqual(['SCRIPT_ENGINE_NOT_LOADED', 'SCRIPT_ENGINE_NOT_LOADED']);
  });

  it('loads and runs an agent without Lua with no sandbox at all', async () => {
    const result = await runAgent(loadAgentWithout(NO_LUA), {}).result;
    expect(result.status).toBe('completed');
  });

  it('compiles with the sandbox the host passes, at load and for nested Lua', async () => {
    const compiled: string[] = [];
    const counting: ScriptSandbox = {
      ...luaSandbox,
      compile: (code, where) => (compiled.push(where?.field ?? ''), luaSandbox.compile(code, where)),
    };
    const agent = loadAgentWithout(LUA_NODE, { scripts: { lua: counting } });
    expect(compiled).toEqual(['run']);
    expect((await runAgent(agent, { a: 2, b: 3 }).result).state).toMatchObject({ total: 5 });
    loadAgentWithout(EVALUATOR, { scripts: { lua: counting }, registry: createActionRegistry() });
    expect(compiled).toEqual(['run', 'evaluator.run', 'run']);
  });

  it('checks settings.lua through the sandbox it was given', () => {
    const yaml = `settings:\n  lua:\n    instructions: 1000000000\n${NO_LUA}`;
    expect(captureError(() => loadAgent(yaml)).code).toBe('INVALID_AGENT');
  });

  it("the main entry's loadAgent includes Lua", async () => {
    const result = await runAgent(loadAgent(LUA_NODE), { a: 40, b: 2 }).result;
    expect(result.state).toMatchObject({ total: 42 });
  });
});
