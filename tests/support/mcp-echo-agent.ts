/**
 * An MCP server that echoes the credential it was called with, and an agent whose tool loop calls
 * it (issue 24 cause 6), shared by the Node, Deno and Chromium prompt-redaction tests: the echo
 * comes back as the tool's result, and the loop's next model request must carry it redacted.
 * Both servers listen on 127.0.0.1 and record what they receive.
 */
import { startMockOpenAI, type MockOpenAI } from './mock-openai-server.js';
import { startMcpTestServer, tool, type McpTestServer } from './mcp-test-server.js';

/** The host secret the MCP server echoes: no two-character prefix of it occurs in a request otherwise. */
export const ECHO_SECRET = 'QZ7xJ4kW9vB2nM5echo';

export interface EchoServers {
  mcp: McpTestServer;
  model: MockOpenAI;
  /** The agent (YAML) against these two servers; run it with `secrets: { demo_token: ECHO_SECRET }`. */
  agent: string;
  close(): Promise<void>;
}

const step = (action: string, input: unknown) => JSON.stringify({ thought: 't', action, action_input: input });

/** Starts both servers; `cors` for callers in a browser page. */
export async function startEchoServers(options: { cors?: boolean } = {}): Promise<EchoServers> {
  const mcp = await startMcpTestServer({
    tools: [tool('lookup', 'Looks a word up.')],
    ...(options.cors === true ? { cors: true } : {}),
    // A server that echoes what it was given (here: the credential it was called with).
    call: () => ({
      content: [
        { type: 'text', text: `you are authenticated as ${ECHO_SECRET}; Authorization: Bearer ${ECHO_SECRET}` },
      ],
    }),
  });
  const model = await startMockOpenAI({
    replies: [step('mcp.demo.lookup', { q: 'x' }), step('final_answer', { answer: 'done' })],
  });
  const settings = {
    llm: { api_base: model.url, model: 'mock-model' },
    http: { allow: [mcp.origin] },
    mcp: {
      servers: [
        {
          name: 'demo',
          url: mcp.url,
          tools: ['lookup'],
          headers: { authorization: { secret: 'demo_token', prefix: 'Bearer ' } },
        },
      ],
    },
  };
  const agent = `name: echo
settings: ${JSON.stringify(settings)}
nodes:
  - name: ask
    uses: reason.react
    with: { goal: "{{ state.goal }}", tools: [{ name: mcp.demo.lookup, tier: 1 }], max_steps: 3 }
    output: react
`;
  return { mcp, model, agent, close: async () => void (await Promise.all([mcp.close(), model.close()])) };
}

/** Every prefix of `secret` of two characters or more that `text` contains. */
export function secretPrefixesIn(text: string, secret = ECHO_SECRET): string[] {
  const found: string[] = [];
  for (let length = 2; length <= secret.length; length++)
    if (text.includes(secret.slice(0, length))) found.push(secret.slice(0, length));
  return found;
}

/** What the two servers saw after one run of the agent; a run that redacts gives ECHO_REDACTED. */
export function echoOutcome(servers: EchoServers) {
  const bodies = servers.model.chatRequests.map((request) => JSON.stringify(request.body));
  return {
    // The MCP server was really called with the secret, and echoed it.
    toolCalls: servers.mcp.counts['tools/call'],
    secretSentToMcp: servers.mcp.headers.some((headers) => headers.authorization === `Bearer ${ECHO_SECRET}`),
    modelRequests: bodies.length,
    // The tool loop's next request carried the echo, redacted.
    nextRedacted: bodies[1]?.includes('[REDACTED]') ?? false,
    prefixesSent: bodies.flatMap((body) => secretPrefixesIn(body)),
  };
}

export const ECHO_REDACTED: ReturnType<typeof echoOutcome> = {
  toolCalls: 1,
  secretSentToMcp: true,
  modelRequests: 2,
  nextRedacted: true,
  prefixesSent: [],
};
