/**
 * Reads a `POST /agents/:name/runs` request, the same wherever the run then executes (in the
 * request, in the process, in a Durable Object): the agent must be served here (404 otherwise) and
 * `input`, when given, a JSON object (400 INPUT_INVALID).
 */
import type { Context } from 'hono';
import type { CompiledAgent } from '../src/graph/compiled-agent.js';
import { isPlainObject } from '../src/util/plain-object.js';
import type { AgentSource } from './agent-source.js';
import { httpError } from './error-status.js';
import { readJsonBody } from './read-json-body.js';

export async function readRunStart(
  c: Context,
  agents: AgentSource,
): Promise<{ name: string; agent: CompiledAgent; input: Record<string, unknown> }> {
  const name = c.req.param('name') ?? '';
  const agent = await agents.get(name);
  if (agent === undefined) throw httpError('NOT_FOUND', `no agent '${name}'`);
  const body = await readJsonBody(c.req.raw, ['input']);
  const input = body.input ?? {};
  if (!isPlainObject(input)) throw httpError('INPUT_INVALID', 'input must be a JSON object');
  return { name, agent, input };
}
