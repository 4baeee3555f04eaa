/**
 * The Lua sandbox against the ScriptSandbox conformance suite, in Node; and the suite against
 * sandboxes broken on purpose, to show that its checks fail when a promise is not kept.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptRunOptions, ScriptSandbox } from '../../src/core/script-sandbox.js';
import { luaSandbox } from '../../src/lua/lua-script-sandbox.js';
import { runScriptSandboxChecks } from '../../src/testing/script-sandbox-checks.js';
import { describeScriptSandboxConformance } from '../../src/testing/script-sandbox-conformance.js';
import { LUA_FIXTURE } from './script-sandbox-lua-fixture.js';

describeScriptSandboxConformance('lua (Node)', luaSandbox, LUA_FIXTURE);

/** The Lua sandbox with `run` replaced. */
function brokenSandbox(
  run: (
    original: (globals: Record<string, unknown>, options?: ScriptRunOptions) => unknown,
    globals: Record<string, unknown>,
    options?: ScriptRunOptions,
  ) => unknown,
): ScriptSandbox {
  return {
    ...luaSandbox,
    compile(code, where) {
      const compiled = luaSandbox.compile(code, where);
      return {
        language: compiled.language,
        source: compiled.source,
        run: (globals, options) => run((g, o) => compiled.run(g, o), globals, options),
      };
    },
  };
}

const failing = (sandbox: ScriptSandbox) =>
  runScriptSandboxChecks(sandbox, LUA_FIXTURE)
    .filter((outcome) => outcome.error !== undefined)
    .map((outcome) => outcome.name);

describe('ScriptSandbox conformance: the checks fail for a broken sandbox', () => {
  it('passes for the real Lua sandbox', () => {
    expect(failing(luaSandbox)).toEqual([]);
  });

  it('catches raw exceptions, uncapped text and ignored budgets', () => {
    const raw = brokenSandbox((original, globals, options) => {
      try {
        return original(globals, options);
      } catch (error) {
        throw new Error(String((error as Error).message).repeat(3));
      }
    });
    expect(failing(raw)).toEqual(
      expect.arrayContaining([
        'runtime errors and results with no JSON form are typed errors, never raw exceptions',
        'the instruction budget ends an endless loop',
        'error text is capped',
      ]),
    );
  });

  it('catches globals that leak from one call into the next', () => {
    let previous: Record<string, unknown> = {};
    const leaky = brokenSandbox((original, globals, options) => {
      previous = { ...previous, ...globals };
      return original(previous, options);
    });
    expect(failing(leaky)).toEqual(['every call starts from a clean environment']);
  });

  it('catches a sandbox that ignores the signal and interrupt', () => {
    const deaf = brokenSandbox((original, globals, options) =>
      original(globals, { ...options, signal: undefined, interrupt: undefined }),
    );
    expect(failing(deaf)).toEqual(
      expect.arrayContaining([
        'an aborted signal ends the call with its reason; an already aborted one runs nothing',
        'what interrupt throws ends the call, and the script cannot catch it',
      ]),
    );
  });
});
