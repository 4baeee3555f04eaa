/**
 * The agents bundled into a worker at build time (`virtual:tea-agents`): specs parsed and checked
 * by the build, compiled here with the engine's compileAgent, so the worker carries no YAML
 * parser. The build already compiled each one, so a failure here would mean the bundle and the
 * engine disagree: it surfaces as INVALID_AGENT on requests instead of crashing the isolate.
 */
import { AgentError, toAgentError } from '../src/core/agent-error.js';
import { combineLoadErrors, problemsOf } from './agent-load-errors.js';
import type { ScriptSandboxes } from '../src/core/script-sandbox.js';
import { createActionRegistry } from '../src/builtins.js';
import { compileAgent } from '../src/graph/compile-agent.js';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import type { AgentSpec } from '../src/spec/agent-spec.js';
import type { SourcePosition } from '../src/spec/parse-yaml.js';
import type { AgentSource, AgentSummary } from './agent-source.js';

/** One agent as the build emits it. */
export interface PrebuiltAgent {
  file: string;
  spec: Omit<AgentSpec, 'positionOf' | 'contentLineOf'>;
  /** Source positions by JSON path, as the build's compilation looked them up. */
  positions: Record<string, SourcePosition | null>;
  lines: Record<string, number | null>;
}

/** Gives a prebuilt spec back its position lookups. */
function revive(prebuilt: PrebuiltAgent): AgentSpec {
  return {
    ...prebuilt.spec,
    positionOf: (path) => prebuilt.positions[JSON.stringify(path)] ?? undefined,
    contentLineOf: (path) => prebuilt.lines[JSON.stringify(path)] ?? undefined,
  };
}

/**
 * An AgentSource over prebuilt agents, compiled on first use (per source object, not per module)
 * with the script sandboxes the host entry passes (Lua for the Cloudflare and Deno entries).
 */
export function prebuiltAgentSource(agents: ReadonlyArray<PrebuiltAgent>, scripts: ScriptSandboxes): AgentSource {
  // Every built-in action; the script sandboxes only of the languages the bundled agents use.
  return lazyAgentSource(() =>
    agents.map((prebuilt) => ({
      file: prebuilt.file,
      compile: () => compileAgent(revive(prebuilt), { scripts, registry: createActionRegistry() }),
    })),
  );
}

/** One agent file for `lazyAgentSource`: where it is, how to compile it, and its text when known. */
export interface LazyAgentFile {
  file: string;
  compile: () => CompiledAgent;
  source?: string;
}

/**
 * An AgentSource over agents compiled on first use; shared by the prebuilt and YAML forms. Every
 * file is compiled. With `invalid: 'throw'` (the default) a failure is thrown as the first error,
 * with `details.errors` listing the problems of every broken file (agent-load-errors.ts). With
 * `invalid: 'list'` (`tea-edge serve`) the valid agents are served and each broken file is listed
 * as `status: 'invalid'` under its file name without the extension (its own `name:` is unknown
 * when it does not load), or the whole file name when a valid agent has that name; `get` of such
 * a name rejects with INVALID_AGENT naming its first problem.
 */
export function lazyAgentSource(
  load: () => LazyAgentFile[],
  options: { invalid?: 'throw' | 'list' } = {},
): AgentSource {
  let loaded:
    | {
        byName: Map<string, CompiledAgent>;
        sources: Map<string, string>;
        invalid: Map<string, { file: string; error: AgentError }>;
      }
    | undefined;
  const all = () => {
    if (loaded === undefined) {
      const byName = new Map<string, CompiledAgent>();
      const sources = new Map<string, string>();
      const failures: Array<{ file: string; error: AgentError }> = [];
      for (const { file, compile, source } of load()) {
        try {
          const agent = compile();
          byName.set(agent.name, agent);
          if (source !== undefined) sources.set(agent.name, source);
        } catch (error) {
          failures.push({ file, error: toAgentError(error, 'INVALID_AGENT', { file }) });
        }
      }
      if (failures.length > 0 && options.invalid !== 'list')
        throw combineLoadErrors(failures.map(({ error }) => error));
      const invalid = new Map<string, { file: string; error: AgentError }>();
      for (const failure of failures) {
        const base = failure.file.split(/[\\/]/).pop() ?? failure.file;
        const stem = base.replace(/\.ya?ml$/, '');
        invalid.set(byName.has(stem) || invalid.has(stem) ? base : stem, failure);
      }
      loaded = { byName, sources, invalid };
    }
    return loaded;
  };
  return {
    list: () => {
      const { byName, invalid } = all();
      const ready: AgentSummary[] = [...byName.values()].map((agent) => ({
        name: agent.name,
        description: agent.description ?? '',
        status: 'ready',
      }));
      const broken: AgentSummary[] = [...invalid.entries()].map(([name, { file, error }]) => ({
        name,
        description: '',
        status: 'invalid',
        file,
        errors: problemsOf(error),
      }));
      return [...ready, ...broken].sort((left, right) => left.name.localeCompare(right.name));
    },
    get: (name) => {
      const { byName, invalid } = all();
      const agent = byName.get(name);
      if (agent !== undefined) return agent;
      const broken = invalid.get(name);
      if (broken !== undefined) throw notServed(name, broken.file, broken.error);
      return undefined;
    },
    source: (name) => all().sources.get(name),
  };
}

/** The error a request for an agent that does not load answers: 422, its first problem named. */
function notServed(name: string, file: string, error: AgentError): AgentError {
  const problems = problemsOf(error);
  const first = problems[0]!;
  const place = [first.file ?? file, first.line, first.column].filter((part) => part !== undefined).join(':');
  return new AgentError(
    'INVALID_AGENT',
    `agent '${name}' is not served: its file does not load (${place} ${first.code} ${first.message})`,
    {
      file: first.file ?? file,
      ...(first.line !== undefined ? { line: first.line } : {}),
      ...(first.column !== undefined ? { column: first.column } : {}),
      details: { errors: problems },
    },
  );
}
