import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/load-agent-with-scripts.js';
import type { AgentEvent } from '../../src/core/events.js';
import type { RunOptions } from '../../src/graph/run-types.js';
import { createReplayProvider, textMatches } from '../../src/llm/replay.js';

const agentYaml = (question: string) => `
name: replayed
settings:
  trace: { capture_payloads: true }
  llm: { provider: scripted, api_key: sk-secret-replay-1234, scripted: ["first answer", { tool_calls: [{ name: t, arguments: { x: 1 } }] }, "third"] }
nodes:
  - { name: a, uses: llm.call, with: { prompt: "${question}" }, output: one }
  - { name: b, uses: llm.stream, with: { system: "be short", prompt: "then {{ state.one.content }}" }, output: two }
  - { name: c, uses: llm.call, with: { prompt: "last" }, output: three }
`;

async function run(yaml: string, options: RunOptions = {}) {
  const started = runAgent(loadAgent(yaml), {}, options);
  const events: AgentEvent[] = [];
  for await (const event of started) events.push(event);
  return { events, result: await started.result };
}

describe('createReplayProvider', () => {
  it('re-runs an agent from its recorded responses with no model', async () => {
    const recorded = await run(agentYaml('What is tea?'));
    expect(recorded.result.status).toBe('completed');
    const stored = JSON.parse(JSON.stringify(recorded.events)) as AgentEvent[];
    expect(JSON.stringify(stored)).not.toContain('sk-secret-replay-1234');
    const provider = createReplayProvider(stored);
    // No script at all: every answer must come from the recording (settings.llm is a closed shape, so the script is removed, not renamed).
    const replayed = await run(agentYaml('What is tea?').replace(/, scripted: \[.*\] \}/, ' }'), {
      llm: { providerFactory: () => provider },
    });
    expect(replayed.result.status).toBe('completed');
    expect(replayed.result.state).toEqual(recorded.result.state);
    expect(provider.remaining).toBe(0);
    expect(provider.mismatches).toEqual([]);
  });

  it('reports the first request that differs from the recording', async () => {
    const recorded = await run(agentYaml('What is tea?'));
    const provider = createReplayProvider(recorded.events);
    const replayed = await run(agentYaml('What is coffee?'), { llm: { providerFactory: () => provider } });
    expect(replayed.result.status).toBe('failed');
    expect(replayed.result.error).toMatchObject({ code: 'LLM_BAD_RESPONSE', node: 'a' });
    expect(provider.mismatches[0]).toEqual({
      call: 1,
      field: 'messages[0].content',
      recorded: 'What is tea?',
      actual: 'What is coffee?',
    });

    const lenient = createReplayProvider(recorded.events, { strict: false });
    const goesOn = await run(agentYaml('What is coffee?'), { llm: { providerFactory: () => lenient } });
    expect(goesOn.result.status).toBe('completed');
    expect(lenient.mismatches).toHaveLength(1);
  });

  it('refuses a trace recorded without payloads', async () => {
    const recorded = await run(agentYaml('x').replace('capture_payloads: true', 'capture_payloads: false'));
    expect(() => createReplayProvider(recorded.events)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
  });

  it('matches redacted and truncated recorded text', () => {
    expect(textMatches('key [REDACTED] ok', 'key sk-123456 ok')).toBe(true);
    expect(textMatches('key [REDACTED] ok', 'key sk-123456 no')).toBe(false);
    expect(textMatches('abc…[truncated 5 characters]', 'abcdefgh')).toBe(true);
    expect(textMatches('abc…[truncated 5 bytes]', 'abcdefgh')).toBe(true);
    expect(textMatches('abc', 'abd')).toBe(false);
  });
});
