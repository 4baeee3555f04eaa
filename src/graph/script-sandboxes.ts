/**
 * Picks the host's sandbox for a language (src/core/script-sandbox.ts). An engine started
 * without one refuses inline code with SCRIPT_ENGINE_NOT_LOADED (`details.language`), so a host
 * without the VM (the web demo's light engine) can tell from the code, not the message, that the
 * agent needs the full engine; the message and `details.import` name the package import that
 * adds the sandbox. A worker bundle carries only the sandboxes of the languages its
 * bundled agents use (build/script-sandbox-modules.mjs), so an agent a host adds later in another
 * language is refused the same way, at load.
 */
import type { ScriptLanguage, ScriptSandbox, ScriptSandboxes, ScriptSource } from '../core/script-sandbox.js';
import { AgentError } from '../core/agent-error.js';

/** The package import that adds each language's sandbox, and how a host passes it. */
const SANDBOX_IMPORTS: Record<ScriptLanguage, { module?: string; pass: string }> = {
  lua: {
    module: 'tea-edge/lua',
    pass: "import { luaSandbox } from 'tea-edge/lua', then loadAgent(text, { scripts: { lua: luaSandbox } })",
  },
  prolog: {
    module: 'tea-edge/prolog',
    pass: "import { loadPrologSandbox } from 'tea-edge/prolog', then loadAgent(text, { scripts: { prolog: await loadPrologSandbox() } })",
  },
  python: { pass: 'only the Node CLI runs Python, when the optional package `pyodide` is installed' },
};

export function sandboxFor(
  scripts: ScriptSandboxes,
  language: ScriptLanguage,
  where: ScriptSource = {},
): ScriptSandbox {
  const sandbox = scripts[language];
  if (sandbox !== undefined) return sandbox;
  const adds = SANDBOX_IMPORTS[language];
  throw new AgentError(
    'SCRIPT_ENGINE_NOT_LOADED',
    `this engine has no ${language} sandbox: the host must pass one (${adds.pass}); a worker bundles only the languages its agents use, TEA_WORKER_SCRIPTS=${language} adds one`,
    {
      ...(where.node !== undefined ? { node: where.node } : {}),
      ...(where.field !== undefined ? { field: where.field } : {}),
      details: { language, ...(adds.module !== undefined ? { import: adds.module } : {}) },
    },
  );
}
