/**
 * The ScriptSandbox conformance suite (beside storage-conformance.ts): every implementation of
 * src/core/script-sandbox.ts runs it, with a fixture of scripts in its language. The checks
 * themselves are runtime-neutral (script-sandbox-checks.ts) so workerd and Chromium run the same.
 *
 * @example
 * describeScriptSandboxConformance('lua', luaSandbox, LUA_FIXTURE);
 */
import { describe, it } from 'vitest';
import type { ScriptSandbox } from '../core/script-sandbox.js';
import { SCRIPT_SANDBOX_CHECKS, type ScriptSandboxFixture } from './script-sandbox-checks.js';

export type { ScriptSandboxFixture } from './script-sandbox-checks.js';

export function describeScriptSandboxConformance(
  name: string,
  sandbox: ScriptSandbox,
  fixture: ScriptSandboxFixture,
): void {
  describe(`ScriptSandbox conformance: ${name}`, () => {
    for (const check of SCRIPT_SANDBOX_CHECKS) it(check.name, () => check.run(sandbox, fixture));
  });
}
