/**
 * The agents bundled into a worker by build/targets/30-worker.mjs: each agent's parsed spec (JSON,
 * without its source-position functions) and the positions its compilation looked up, keyed by
 * the JSON of the path. Compiled and checked at build time.
 */
/** The script sandboxes the bundled agents need: Lua always, Prolog when one of them uses it. */
declare module 'virtual:tea-scripts' {
  import type { ScriptSandboxes } from '../src/core/script-sandbox.js';
  const scripts: ScriptSandboxes;
  export default scripts;
}

declare module 'virtual:tea-agents' {
  import type { PrebuiltAgent } from './prebuilt-agent-source.js';
  const agents: ReadonlyArray<PrebuiltAgent>;
  export default agents;
}
