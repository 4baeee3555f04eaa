/** The ScriptSandbox conformance checks for the Lua sandbox in workerd, Chromium and Deno (script-sandbox-runtimes.ts). */
import { describeScriptSandboxInRuntimes } from './script-sandbox-runtimes.js';

describeScriptSandboxInRuntimes(
  'lua',
  { module: 'src/lua/lua-script-sandbox.ts', name: 'luaSandbox' },
  { module: 'tests/conformance/script-sandbox-lua-fixture.ts', name: 'LUA_FIXTURE' },
);
