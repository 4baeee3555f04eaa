/**
 * `probeEndpoint` as the package entries export it: the probe (src/llm/probe.ts, with the server
 * facts it reads) is its own chunk, loaded on the first call, so a page that imports the whole
 * API but never probes does not load it at start (docs/architecture.md, "What to import").
 */
import type { ProbeOptions, ProbeReport } from './probe.js';

/** Checks what an OpenAI-compatible endpoint supports (src/llm/probe.ts, loaded on the first call). */
export async function probeEndpoint(options: ProbeOptions): Promise<ProbeReport> {
  const { probeEndpoint: probe } = await import('./probe.js');
  return probe(options);
}
