/**
 * The agent-file seam of the Workers and Deno bundles (issue 13): agent.* with `{file: …}` runs
 * another of the agents bundled at build time. The build names each file from the repository
 * root (`examples/triage.yaml`); agents call each other by the name inside that folder
 * (`triage.yaml`), as they do on the CLI and `serve --agents`.
 */
import { compiledAgentFileSource, type AgentFileSource } from '../src/graph/agent-files.js';
import type { AgentSource } from './agent-source.js';
import type { PrebuiltAgent } from './prebuilt-agent-source.js';

export function prebuiltAgentFiles(agents: ReadonlyArray<PrebuiltAgent>, source: AgentSource): AgentFileSource {
  const nameByFile = new Map(agents.map((agent) => [agent.file.split(/[\\/]/).pop()!, agent.spec.name]));
  return compiledAgentFileSource("the worker's bundled agents", (file) => {
    const name = nameByFile.get(file);
    return name === undefined ? undefined : source.get(name);
  });
}
