/**
 * The agents bundled into a worker by build/targets/30-worker.mjs: each agent's parsed spec (JSON,
 * without its source-position functions) and the positions its compilation looked up, keyed by
 * the JSON of the path. Compiled and checked at build time.
 */
declare module 'virtual:tea-agents' {
  import type { PrebuiltAgent } from './prebuilt-agent-source.js';
  const agents: ReadonlyArray<PrebuiltAgent>;
  export default agents;
}

/**
 * The script sandboxes the bundled agents' code uses, chosen by the build from the languages their
 * compilation needed (build/script-sandbox-modules.mjs): an agent in another language gets
 * SCRIPT_ENGINE_NOT_LOADED when it loads.
 */
declare module 'virtual:tea-script-sandboxes' {
  import type { ScriptSandboxes } from '../src/core/script-sandbox.js';
  const sandboxes: ScriptSandboxes;
  export default sandboxes;
}
