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
