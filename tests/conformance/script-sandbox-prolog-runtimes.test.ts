/** The ScriptSandbox conformance checks for the Prolog sandbox in workerd, Chromium and Deno (script-sandbox-runtimes.ts). */
import { describeScriptSandboxInRuntimes } from './script-sandbox-runtimes.js';

describeScriptSandboxInRuntimes(
  'prolog',
  { module: 'src/prolog/prolog-script-sandbox.ts', name: 'prologSandbox' },
  { module: 'tests/conformance/script-sandbox-prolog-fixture.ts', name: 'PROLOG_FIXTURE' },
);
