/** The agent files bundled into a worker by build/targets/30-worker.mjs (checked at build time). */
declare module 'virtual:tea-agents' {
  const agents: ReadonlyArray<{ file: string; source: string }>;
  export default agents;
}
