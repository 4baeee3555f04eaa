/**
 * The library's cost follows use, checked on the packed tarball (as a user installs it):
 * - a browser bundle made from it (as a user's bundler makes it, with the package's
 *   "sideEffects") of each use that `tea-edge bench bundles` measures carries what that use
 *   needs and not the rest: compiled agents without the YAML parser and the Lua VM, `loadAgent`
 *   from `tea-edge/engine` with the parser and without Lua or reasoning, the main entry with all;
 * - the opt-in entries work under Node from the installed package: an agent runs with the
 *   actions and languages imported, and one naming an action or a language that was not
 *   imported fails at load with the import that adds it.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFromPackage, installPackedTarball, PACKAGE_USES } from '../../bench/package-bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const YAML_PARSER = 'Implicit keys need to be on a single line';
const LUA_VM = 'luaL_newstate';
const REACT_LOOP = 'ReAct final answer (limit reached)';
let directory: string;

beforeAll(async () => {
  directory = await installPackedTarball(ROOT);
}, 180_000);
afterAll(() => rm(directory, { recursive: true, force: true }));

const contains = (outputs: Array<{ text: string; atStart: boolean }>, marker: string) =>
  outputs.some((output) => output.atStart && output.text.includes(marker));

describe('a browser bundle from the packed tarball', () => {
  // In the order of PACKAGE_USES: what each use carries at start (YAML parser, Lua VM, ReAct loop).
  const expected: Array<[boolean, boolean, boolean]> = [
    [false, false, false],
    [true, false, false],
    [true, false, true],
    [true, true, true],
  ];
  PACKAGE_USES.forEach((use, index) => {
    it(`of "${use.name}" carries what it uses and no more`, async () => {
      const outputs = await bundleFromPackage(directory, use.entry, `use-${index}`);
      const [yaml, lua, react] = expected[index]!;
      expect({
        yaml: contains(outputs, YAML_PARSER),
        lua: contains(outputs, LUA_VM),
        react: contains(outputs, REACT_LOOP),
      }).toEqual({ yaml, lua, react });
    }, 60_000);
  });
});

const SCRIPT = `
import { loadAgent, runAgent, createRegistry, createScriptedModel } from 'tea-edge/engine';
import { llmActions } from 'tea-edge/actions/llm';
import { coreActions } from 'tea-edge/actions/core';
import { toolActions } from 'tea-edge/actions/tools';
import { reasoningActions } from 'tea-edge/reasoning';
import { reflectionActions, reviewRun } from 'tea-edge/reflection';
import { prologActions, loadPrologSandbox } from 'tea-edge/prolog';
import { luaSandbox } from 'tea-edge/lua';
import * as everything from 'tea-edge';

const refusal = (run) => { try { run(); return 'loaded'; } catch (error) { return { code: error.code, import: error.details.import, message: error.message }; } };
const ask = 'nodes:\\n  - name: ask\\n    uses: llm.call\\n    with:\\n      model: m\\n      prompt: "Say {{ state.word }}"\\n    output: reply\\n';
const agent = loadAgent(ask, { registry: createRegistry(llmActions()) });
const run = runAgent(agent, { word: 'hi' }, { llm: { providerFactory: () => createScriptedModel(['hello']) } });
const result = await run.result;
const think = 'nodes:\\n  - name: think\\n    uses: reason.cot\\n    with:\\n      model: m\\n      problem: "2 + 2"\\n';
const lua = 'nodes:\\n  - name: add\\n    run: |\\n      return { total = state.a + state.b }\\n';
const luaAgent = loadAgent(lua, { scripts: { lua: luaSandbox } });
const prolog = await loadPrologSandbox();
const all = createRegistry([...coreActions(), ...llmActions(), ...toolActions(), ...reasoningActions(), ...reflectionActions(), ...prologActions()]);
console.log(JSON.stringify({
  status: result.status,
  reply: result.state.reply?.content,
  withoutReasoning: refusal(() => loadAgent(think, { registry: createRegistry(llmActions()) })),
  withReasoning: refusal(() => loadAgent(think, { registry: createRegistry([...llmActions(), ...reasoningActions()]) })),
  withoutLua: refusal(() => loadAgent(lua, { registry: createRegistry() })),
  lua: (await runAgent(luaAgent, { a: 2, b: 3 }).result).state.total,
  prolog: typeof prolog.compile,
  reviewRun: typeof reviewRun,
  sets: all.list().length,
  mainEntry: everything.createActionRegistry().list().length,
}));
`;

describe('the opt-in entries of the installed package', () => {
  it('run what was imported and name the import for what was not', async () => {
    const file = path.join(directory, 'scenario.mjs');
    await writeFile(file, SCRIPT);
    const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: directory });
    const outcome = JSON.parse(stdout) as Record<string, unknown>;
    expect(outcome).toMatchObject({
      status: 'completed',
      reply: 'hello',
      withoutReasoning: { code: 'UNKNOWN_ACTION', import: 'tea-edge/reasoning' },
      withReasoning: 'loaded',
      withoutLua: { code: 'SCRIPT_ENGINE_NOT_LOADED', import: 'tea-edge/lua' },
      lua: 5,
      prolog: 'function',
      reviewRun: 'function',
    });
    expect((outcome.withoutReasoning as { message: string }).message).toContain(
      "import { reasoningActions } from 'tea-edge/reasoning'",
    );
    expect((outcome.withoutLua as { message: string }).message).toContain("import { luaSandbox } from 'tea-edge/lua'");
    // The sets together are every built-in action, as the main entry has them.
    expect(outcome.sets).toBe(outcome.mainEntry);
  }, 120_000);
});

const CONSUMER = `
import { loadAgent, compileAgent, runAgent, createRegistry, type CompiledAgent, type ActionDefinition } from 'tea-edge/engine';
import { llmActions } from 'tea-edge/actions/llm';
import { coreActions } from 'tea-edge/actions/core';
import { toolActions } from 'tea-edge/actions/tools';
import { reasoningActions } from 'tea-edge/reasoning';
import { reflectionActions, reviewRun, type Review } from 'tea-edge/reflection';
import { prologActions, loadPrologSandbox } from 'tea-edge/prolog';
import { luaSandbox } from 'tea-edge/lua';
import * as everything from 'tea-edge';

const actions: ActionDefinition[] = [...coreActions(), ...llmActions(), ...toolActions(), ...reasoningActions(), ...reflectionActions(), ...prologActions()];
const agent: CompiledAgent = loadAgent('nodes: []', { registry: createRegistry(actions), scripts: { lua: luaSandbox, prolog: await loadPrologSandbox() } });
const again: CompiledAgent = everything.loadAgent('nodes: []');
export const uses = [agent, again, compileAgent, runAgent, reviewRun as (options: Parameters<typeof reviewRun>[0]) => Promise<Review>];
`;

describe('a TypeScript user of the installed package', () => {
  for (const resolution of ['nodenext', 'node16', 'bundler'] as const) {
    it(`type-checks every entry under moduleResolution ${resolution}`, async () => {
      const folder = path.join(directory, `ts-${resolution}`);
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, 'consumer.ts'), CONSUMER);
      await writeFile(path.join(folder, 'package.json'), '{"type": "module"}');
      await symlink(path.join(directory, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
      const module = resolution === 'bundler' ? 'esnext' : resolution;
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      const compilerOptions = {
        noEmit: true,
        strict: true,
        skipLibCheck: false,
        target: 'es2022',
        lib: ['es2022', 'dom'],
        types: [],
        module,
        moduleResolution: resolution,
      };
      await writeFile(path.join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
      const outcome = await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: folder }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(outcome).toBe('');
    }, 120_000);
  }
});
