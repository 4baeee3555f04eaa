/**
 * The action sets (src/action-sets/, one package entry each) and the catalog the registry names
 * imports from (src/actions/action-imports.ts) agree: each set holds exactly the names the catalog
 * gives it, the sets together are every built-in action with none twice, and each set's entry is
 * exported by package.json. The engine (`tea-edge/engine`'s loadAgent) refuses an action or a
 * language that was not passed, naming the import that adds it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreActions } from '../../src/action-sets/core.js';
import { llmActions } from '../../src/action-sets/llm.js';
import { prologActions } from '../../src/action-sets/prolog.js';
import { reasoningActions } from '../../src/action-sets/reasoning.js';
import { reflectionActions } from '../../src/action-sets/reflection.js';
import { toolActions } from '../../src/action-sets/tools.js';
import { actionSetImports } from '../../src/actions/action-imports.js';
import { builtinActions } from '../../src/builtins.js';
import type { AgentError } from '../../src/core/agent-error.js';
import { captureError } from '../../src/lua/lua-test-helpers.js';
import { createRegistry, loadAgent } from '../../src/engine.js';
import type { ActionDefinition } from '../../src/core/action.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SETS: Record<string, () => ActionDefinition[]> = {
  coreActions,
  llmActions,
  toolActions,
  reasoningActions,
  reflectionActions,
  prologActions,
};
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};

const loadError = (yaml: string, options: Parameters<typeof loadAgent>[1] = {}): AgentError =>
  captureError(() => loadAgent(yaml, { file: 'agent.yaml', ...options }));

describe('the action sets', () => {
  it('hold exactly the names the catalog gives each entry', () => {
    for (const set of actionSetImports()) {
      const actions = SETS[set.name];
      expect(actions, set.name).toBeDefined();
      expect(
        actions!()
          .map((action) => action.name)
          .sort(),
        set.module,
      ).toEqual([...set.actions].sort());
    }
    expect(
      actionSetImports()
        .map((set) => set.name)
        .sort(),
    ).toEqual(Object.keys(SETS).sort());
  });

  it('together are every built-in action, each once', () => {
    const fromSets = actionSetImports().flatMap((set) => set.actions);
    expect(new Set(fromSets).size).toBe(fromSets.length);
    expect([...fromSets].sort()).toEqual(
      builtinActions()
        .map((action) => action.name)
        .sort(),
    );
  });

  it('are each a package entry', () => {
    for (const set of actionSetImports())
      expect(Object.keys(manifest.exports), set.module).toContain(set.module.replace(/^tea-edge/, '.'));
    for (const entry of ['./engine', './lua', './prolog']) expect(Object.keys(manifest.exports)).toContain(entry);
  });
});

describe("the engine's loadAgent takes only what the host passes", () => {
  it('refuses each built-in action it was not given, naming the import that adds it', () => {
    for (const set of actionSetImports()) {
      const action = set.actions[0]!;
      const error = loadError(`nodes:\n  - name: step\n    uses: ${action}\n`);
      expect(error.code, action).toBe('UNKNOWN_ACTION');
      expect(error.message).toContain(`import { ${set.name} } from '${set.module}'`);
      expect(error.details.import).toBe(set.module);
      expect(error.details.errors).toEqual([
        expect.objectContaining({ code: 'UNKNOWN_ACTION', node: 'step', field: 'uses', line: 3, import: set.module }),
      ]);
    }
  });

  it('loads an agent once its set is passed, and still suggests names for a typo', () => {
    expect(() =>
      loadAgent('nodes:\n  - name: think\n    uses: reason.cot\n    with:\n      problem: "2 + 2"\n', {
        registry: createRegistry(reasoningActions()),
      }),
    ).not.toThrow();
    const typo = loadError('nodes:\n  - name: think\n    uses: reason.cto\n', {
      registry: createRegistry(reasoningActions()),
    });
    expect(typo.message).toContain('did you mean reason.cot');
    expect(typo.details.import).toBeUndefined();
  });

  it("refuses TEA's actions_ spelling of an action it was not given the same way", () => {
    const error = loadError('nodes:\n  - name: step\n    uses: actions.llm_call\n');
    expect(error.details.import).toBe('tea-edge/actions/llm');
  });

  it('refuses Lua and Prolog it was not given, naming the import', () => {
    const lua = loadError('nodes:\n  - name: add\n    run: |\n      return { total = 1 }\n');
    expect(lua.code).toBe('SCRIPT_ENGINE_NOT_LOADED');
    expect(lua.details.import).toBe('tea-edge/lua');
    expect(lua.message).toContain("import { luaSandbox } from 'tea-edge/lua'");
    const prolog = loadError('nodes:\n  - name: solve\n    language: prolog\n    run: "x(1)."\n');
    expect(prolog.code).toBe('SCRIPT_ENGINE_NOT_LOADED');
    expect(prolog.details.import).toBe('tea-edge/prolog');
    expect(prolog.message).toContain("import { loadPrologSandbox } from 'tea-edge/prolog'");
  });
});
