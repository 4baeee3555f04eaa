/** Agent texts the MCP tests share across runtimes (Node, workerd, Chromium). */

/** A ReAct agent whose one tool, mcp.demo.lookup, comes from the MCP server at `url`. */
export function mcpUserAgent(url: string, origin: string): string {
  return `name: mcp-user
description: Answers with a word looked up on an MCP server.
settings:
  http: { allow: ["${origin}"] }
  mcp:
    servers:
      - { name: demo, url: "${url}", tools: [lookup] }
  llm:
    provider: scripted
    model: scripted
    scripted:
      - '{"thought": "look it up", "action": "mcp.demo.lookup", "action_input": {"q": "cortado"}}'
      - '{"thought": "done", "action": "final_answer", "action_input": {"answer": "found it"}}'
nodes:
  - name: ask
    uses: reason.react
    with:
      goal: "What is a cortado?"
      tools: [{ name: mcp.demo.lookup, tier: 1 }]
      max_steps: 3
    output: react
`;
}
