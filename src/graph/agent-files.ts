/**
 * The agent-file seam: where `agent.dispatch`, `agent.sequential` and `agent.parallel` find
 * another agent *file of the same host* to run as a sub-run (`agent: {file: triage.yaml}`).
 * Each host passes one in RunOptions.agentFiles: the CLI the calling agent's folder, `serve
 * --agents DIR` that folder, the Workers / Deno entries their prebuilt agents, the web demo its
 * bundled examples. The engine resolves the path first (relative to the calling agent's folder,
 * never leaving the root: src/util/rooted-path.ts), so a source only ever sees a normal rooted
 * path such as `triage.yaml` or `team/review.yaml`.
 */
import { AgentError } from '../core/agent-error.js';
import type { FileStore } from '../core/file-store.js';
import type { ScriptSandboxes } from '../core/script-sandbox.js';
import type { ActionRegistry } from '../actions/registry.js';
import type { CompiledAgent } from './compiled-agent.js';
import { loadAgent } from './load-agent.js';

export interface AgentFileSource {
  /** Names the root in messages: `folder examples`, `the worker's bundled agents`. */
  readonly description: string;
  /**
   * The compiled agent at the rooted path `file`, or undefined when there is none. A file that
   * fails to load throws its load error (every problem in `details.errors`, as loadAgent does).
   * `scripts` and `registry`: the calling agent's script sandboxes and actions, for sources
   * that compile text (a sub-agent may use what its caller's host gave, no more).
   */
  load(file: string, scripts: ScriptSandboxes, registry: ActionRegistry): Promise<CompiledAgent | undefined>;
}

/**
 * A source over agent texts (a folder on disk, OPFS, bundled YAML): each file is read and
 * loaded like any agent the first time it is asked for, then kept. What is kept is per calling
 * registry and script sandboxes: a file compiled against one caller's actions binds those actions,
 * so a caller with other actions (another host's registry sharing the source) compiles its own copy.
 */
export function textAgentFileSource(
  description: string,
  read: (file: string) => Promise<string | undefined>,
): AgentFileSource {
  const byRegistry = new WeakMap<
    ActionRegistry,
    WeakMap<ScriptSandboxes, Map<string, Promise<CompiledAgent | undefined>>>
  >();
  const loadedFor = (
    registry: ActionRegistry,
    scripts: ScriptSandboxes,
  ): Map<string, Promise<CompiledAgent | undefined>> => {
    let byScripts = byRegistry.get(registry);
    if (byScripts === undefined) byRegistry.set(registry, (byScripts = new WeakMap()));
    let loaded = byScripts.get(scripts);
    if (loaded === undefined) byScripts.set(scripts, (loaded = new Map()));
    return loaded;
  };
  return {
    description,
    load(file, scripts, registry) {
      const loaded = loadedFor(registry, scripts);
      let agent = loaded.get(file);
      if (agent === undefined) {
        agent = read(file).then((text) =>
          text === undefined ? undefined : loadAgent(text, { file, scripts, registry }),
        );
        // A failed load is not kept: the next run reads the file again (it may have been fixed).
        agent.catch(() => loaded.delete(file));
        loaded.set(file, agent);
      }
      return agent;
    },
  };
}

/** A source over agents compiled already (the worker's prebuilt ones), keyed by rooted path. */
export function compiledAgentFileSource(
  description: string,
  agents: (file: string) => CompiledAgent | undefined | Promise<CompiledAgent | undefined>,
): AgentFileSource {
  return {
    description,
    load: async (file) => agents(file),
  };
}

/** A host's refusal when it was given no agent source. */
export function noAgentSource(node: string): AgentError {
  return new AgentError(
    'FORBIDDEN',
    "this host gives no agent files to run as sub-runs (tea-edge run and serve give the agent's folder, the worker its bundled agents)",
    {
      node,
      field: 'agent',
    },
  );
}

/** The largest agent file a text source reads (the YAML parser has its own, tighter limits). */
export const MAX_AGENT_FILE_BYTES = 1024 * 1024;

/** A source over the agent files of a FileStore (a folder on disk, OPFS): the rooted-path rules and symlink checks are the store's. */
export function fileStoreAgentSource(store: FileStore): AgentFileSource {
  return textAgentFileSource(store.description, async (file) => {
    const bytes = await store.read(file, MAX_AGENT_FILE_BYTES);
    if (bytes === undefined) return undefined;
    if (bytes.byteLength > MAX_AGENT_FILE_BYTES)
      throw new AgentError('INPUT_TOO_LARGE', `agent file '${file}' is larger than ${MAX_AGENT_FILE_BYTES} bytes`, {
        file,
      });
    return new TextDecoder().decode(bytes);
  });
}
