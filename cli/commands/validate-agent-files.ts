/**
 * `tea-edge validate` follows agent files run as sub-runs (issue 13): every literal
 * `{file: …}` reference of agent.dispatch / sequential / parallel is resolved in the calling
 * agent's folder, as `tea-edge run` does, and the file is loaded and checked like any agent (and
 * its own references in turn, once each). A missing file is a NOT_FOUND problem at the node;
 * a broken one adds its own problems. Templated references are left to run time.
 */
import path from 'node:path';
import { toAgentError, problemsOf, type LoadProblem, type CompiledAgent, type NodeBody } from '../../src/host.js';
import { joinRooted, rootedDirname, rootedPathRefusal } from '../../src/host-storage.js';
import { displayName, loadAgentFile } from '../agent-file.js';

const AGENT_ACTION = /^(actions\.)?agent[._](dispatch|sequential|parallel)$/;

interface Reference {
  file: string;
  node: string;
  where: Array<string | number>;
}

/** The problems of the agent files `agent` (at `file`) runs as sub-runs, and of theirs. */
export async function agentFileProblems(agent: CompiledAgent, file: string): Promise<LoadProblem[]> {
  const folder = path.dirname(path.resolve(file));
  const seen = new Set<string>([path.basename(file)]);
  const problems: LoadProblem[] = [];
  const visit = async (caller: CompiledAgent, callerFile: string, shownAs: string): Promise<void> => {
    for (const reference of referencesOf(caller)) {
      if (rootedPathRefusal(reference.file) !== undefined) continue; // the load already refused it
      const target = joinRooted(
        rootedDirname(callerFile),
        reference.file
          .split('/')
          .filter((part) => part !== '' && part !== '.')
          .join('/'),
      );
      if (seen.has(target)) continue;
      seen.add(target);
      try {
        const loaded = await loadAgentFile(path.join(folder, ...target.split('/')));
        await visit(loaded.agent, target, displayName(path.join(folder, target)));
      } catch (error) {
        const failure = toAgentError(error, 'INVALID_AGENT');
        if (failure.code !== 'NOT_FOUND') {
          problems.push(...problemsOf(failure, displayName(path.join(folder, target))));
          continue;
        }
        const place = caller.spec.positionOf(reference.where);
        problems.push({
          file: shownAs,
          code: 'NOT_FOUND',
          message: `agent file '${target}' (run by node '${reference.node}' as a sub-run) does not exist`,
          ...(place !== undefined ? { line: place.line, column: place.column } : {}),
          node: reference.node,
          field: 'agent',
        });
      }
    }
  };
  await visit(agent, path.basename(file), displayName(file));
  return problems;
}

/** Literal file references of the agent.* actions in every node body, nested steps included. */
function referencesOf(agent: CompiledAgent): Reference[] {
  const found: Reference[] = [];
  const walk = (body: NodeBody, node: string, where: Array<string | number>): void => {
    if (body.kind === 'action' && AGENT_ACTION.test(body.action)) {
      const single = body.with['agent'];
      const list = body.with['agents'];
      const entries: Array<[unknown, Array<string | number>]> = [[single, [...where, 'with', 'agent']]];
      if (Array.isArray(list))
        list.forEach((entry, index) => {
          entries.push([entry, [...where, 'with', 'agents', index]]);
        });
      for (const [entry, at] of entries) {
        const target = (entry as { file?: unknown } | null)?.file;
        if (typeof target === 'string' && !target.includes('{{')) found.push({ file: target, node, where: at });
      }
    } else if (body.kind === 'steps' || body.kind === 'while_loop') {
      const steps = body.kind === 'steps' ? body.steps : body.body;
      for (const step of steps) walk(step.body, node, step.path);
    } else if (body.kind === 'dynamic_parallel') {
      walk(body.branch, node, where);
    }
  };
  for (const node of agent.spec.nodes) walk(node.body, node.name, node.path);
  return found;
}
