/**
 * What is sent to the model passes the run's redaction (issue 24 cause 6): a secret that a tool
 * or MCP server echoes, or that a template renders into a prompt, is `[REDACTED]` in the request
 * body a model server on 127.0.0.1 receives, on every call (the first prompt and the tool loop's
 * next ones), streamed or not, and in embeddings input. The lent history the engine keeps for the
 * next call is not changed by it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runYaml } from '../engine/helpers.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { renderingSecretsAgent } from '../support/rendering-secrets-agent.js';
import {
  ECHO_REDACTED,
  ECHO_SECRET,
  echoOutcome,
  startEchoServers,
  type EchoServers,
} from '../support/mcp-echo-agent.js';
import { redactRequest } from '../../src/llm/redact-request.js';
import type { LlmRequest } from '../../src/core/model-provider.js';

const SECRET = 'tool-echoed-secret-7f3a9c';
const MODEL_KEY = 'sk-host-model-key-0b1c2d3e';
const open: Array<MockOpenAI | EchoServers> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe('model requests are redacted before they are sent', () => {
  it('an MCP tool echoing a host secret: the next prompt carries [REDACTED], the model server never sees the secret', async () => {
    const servers = await startEchoServers();
    open.push(servers);
    const { result } = await runYaml(servers.agent, { goal: 'look it up' }, { secrets: { demo_token: ECHO_SECRET } });
    expect(result.status).toBe('completed');
    expect(echoOutcome(servers)).toEqual(ECHO_REDACTED);
  });

  it('a prompt rendered with a secret, the host model key in a prompt, streamed or not, and embeddings input', async () => {
    const model = await startMockOpenAI({ replies: ['one', 'two', 'three'] });
    open.push(model);
    const yaml = renderingSecretsAgent(model.url);
    const { result } = await runYaml(
      yaml,
      { key: MODEL_KEY },
      { secrets: { demo_token: SECRET }, llm: { overrides: { api_key: MODEL_KEY } } },
    );
    expect(result.status).toBe('completed');
    const sent = JSON.stringify(model.requests.map((request) => request.body));
    expect(model.chatRequests).toHaveLength(2);
    expect(model.embeddingRequests).toHaveLength(1);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain(MODEL_KEY);
    expect(sent.match(/\[REDACTED\]/g)?.length).toBe(5);
  });
});

describe('redactRequest', () => {
  it('returns the request itself when nothing needs redaction, and never changes a lent history', () => {
    const messages = [{ role: 'user' as const, content: 'hello' }];
    const request: LlmRequest = {
      messages,
      tools: [
        {
          type: 'function',
          function: { name: 'f', parameters: { type: 'object', properties: { api_key: { type: 'string' } } } },
        },
      ],
    };
    expect(redactRequest(request, [SECRET])).toBe(request);
    messages.push({ role: 'user', content: `echo ${SECRET}` });
    const clean = redactRequest(request, [SECRET]);
    expect(clean.messages[1]!.content).toBe('echo [REDACTED]');
    expect(messages[1]!.content).toBe(`echo ${SECRET}`);
    expect(clean.messages[0]).toBe(messages[0]);
    // Keys are kept: a parameter named like a credential stays a schema.
    expect(clean.tools).toBe(request.tools);
  });

  it('tool call arguments (JSON text) lose a secret also in its JSON-escaped form', () => {
    const quoted = 'se"cr\\et-value';
    const request: LlmRequest = {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: JSON.stringify({ key: quoted }) } },
          ],
        },
      ],
    };
    const clean = redactRequest(request, [quoted]);
    expect(JSON.stringify(clean)).not.toContain(JSON.stringify(quoted).slice(1, -1));
  });
});
