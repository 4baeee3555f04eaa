/**
 * How each ModelProvider implementation is made to act out a conformance Scenario: the mock
 * OpenAI-compatible server is given replies and faults, the scripted model a script, replay a
 * recording made by the real client against the mock through the real ModelCaller.
 */
import { closedModelUrl } from '../support/closed-port.js';
import type { AgentEvent } from '../../src/core/events.js';
import { createModelCaller } from '../../src/llm/model-caller.js';
import type { LlmResponse, ModelProvider } from '../../src/core/model-provider.js';
import type { MockFault, MockOpenAI, MockReply } from '../support/mock-openai-server.js';
import {
  FAULT_CODES,
  isFault,
  type ConformanceFault,
  type ConformanceReply,
  type Scenario,
} from '../../src/testing/model-provider-conformance.js';

/** A client timeout that the `timeout` fault's delay outlasts, and that normal answers never reach. */
export const CLIENT_TIMEOUT_MS = 1_000;
const SLOW_MS = 5_000;

function mockReply(reply: ConformanceReply): MockReply {
  const mock: MockReply = { content: reply.content };
  if (reply.tool_calls !== undefined)
    mock.tool_calls = reply.tool_calls.map((call) => ({ name: call.name, arguments: call.arguments }));
  if (reply.usage !== undefined) mock.usage = reply.usage;
  return mock;
}

function mockFault(fault: Exclude<ConformanceFault, 'unavailable'>, times: number | undefined): MockFault {
  switch (fault) {
    case 'http_404':
      return { type: 'status', status: 404, times };
    case 'http_500':
      return { type: 'status', status: 500, times };
    case 'timeout':
      return { type: 'delay', ms: CLIENT_TIMEOUT_MS * 3, times };
    case 'broken_stream':
      return { type: 'reset', afterChunks: 2, times };
    case 'not_json':
      return { type: 'not_json', times };
  }
}

/**
 * Sets the mock up for a scenario and says where and how the client should connect. Faults are
 * armed for the next requests, so a faulted call must be the scenario's only call.
 */
export function armMock(
  server: MockOpenAI,
  deadUrl: string,
  scenario: Scenario,
): { api_base: string; max_retries: number; timeout_ms: number } {
  server.setFault();
  server.requests.length = 0;
  server.setReplies(
    scenario.calls.map(({ outcome }) => mockReply(isFault(outcome) ? (outcome.reply ?? { content: '' }) : outcome)),
  );
  const faulted = scenario.calls.find((call) => isFault(call.outcome));
  let apiBase = server.url;
  if (faulted !== undefined && isFault(faulted.outcome)) {
    if (scenario.calls.length !== 1)
      throw new Error('conformance: a faulted call must be the only call of its scenario');
    if (faulted.outcome.fault === 'unavailable') apiBase = deadUrl;
    else server.setFault(mockFault(faulted.outcome.fault, faulted.outcome.times));
  } else if (scenario.slow === true) {
    server.setFault({ type: 'delay', ms: SLOW_MS });
  }
  return { api_base: apiBase, max_retries: scenario.maxRetries, timeout_ms: CLIENT_TIMEOUT_MS };
}

/** A model endpoint where nothing listens (tests/support/closed-port.ts). */
export const deadEndpoint = closedModelUrl;

/** The scripted model's script for a scenario: one entry per call. */
export function scriptFor(scenario: Scenario): unknown[] {
  return scenario.calls.map(({ outcome }) => {
    const entry: Record<string, unknown> = isFault(outcome)
      ? { error: { code: FAULT_CODES[outcome.fault], message: `scripted ${outcome.fault}` } }
      : { content: outcome.content };
    if (!isFault(outcome)) {
      if (outcome.tool_calls !== undefined) entry.tool_calls = outcome.tool_calls;
      if (outcome.usage !== undefined) entry.usage = outcome.usage;
    }
    if (scenario.slow === true) entry.delay_ms = SLOW_MS;
    return entry;
  });
}

/**
 * Records a scenario the way `tea-edge run --record` does: each call goes through the engine's
 * ModelCaller with payload capture on, to `recorder`; returns the events and what each call gave.
 */
export async function recordScenario(
  scenario: Scenario,
  recorder: ModelProvider,
): Promise<{ events: AgentEvent[]; results: (LlmResponse | { code: string })[] }> {
  const events: AgentEvent[] = [];
  const caller = createModelCaller({
    settingsLlm: {},
    providerFactory: () => recorder,
    signal: new AbortController().signal,
    emit: (type, data) =>
      events.push({
        type,
        run_id: 'recorded',
        seq: events.length + 1,
        ts: new Date(0).toISOString(),
        node: 'conformance',
        data,
      } as AgentEvent),
    budget: { beforeLlmCall() {}, afterLlmCall() {} },
    capturePayloads: true,
  });
  const results: (LlmResponse | { code: string })[] = [];
  for (const { request } of scenario.calls) {
    results.push(
      await caller
        .call({ messages: request.messages, model: request.model })
        .catch((error: { code: string }) => ({ code: error.code })),
    );
  }
  return { events: JSON.parse(JSON.stringify(events)) as AgentEvent[], results };
}
