/**
 * Issue 24 cause 6 inside Deno: the engine's MCP client calls an HTTP MCP server on 127.0.0.1 that
 * echoes the host secret, and the tool loop's next model request goes to a model server on
 * 127.0.0.1. Bundled and spawned by tests/deno/mcp-echo.test.ts (which runs both servers and reads
 * what the model server received):
 *   deno run --allow-net=127.0.0.1 mcp-echo.js <agent.yaml text> <secret>
 * Prints one JSON line: the run's status and whether the secret is anywhere in its result or events.
 */
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import { runAgent } from '../../src/graph/run-agent.js';

declare const Deno: { args: string[] };

const [agent, secret] = Deno.args as [string, string];
const handle = runAgent(
  loadAgent(agent, { file: 'echo.yaml' }),
  { goal: 'look it up' },
  { secrets: { demo_token: secret } },
);
const events: unknown[] = [];
for await (const event of handle) events.push(event);
const result = await handle.result;
const text = JSON.stringify({ result, events });
console.log(
  JSON.stringify({
    status: result.status,
    error: result.error,
    secretInRun: text.includes(secret),
    inDeno: typeof (globalThis as { Deno?: unknown }).Deno === 'object',
  }),
);
