/**
 * The model requests each node of the `relay` test agent (tests/worker/agents/relay.yaml) made,
 * read from the mock server's log: every relay prompt starts with `relay node <name>:`. The
 * restart tests count them to show which nodes ran again after a host died.
 */
import type { RecordedRequest } from './mock-openai-server.js';

/** How many of `requests` (from index `from` on) each relay node made, by node name. */
export function relayCalls(requests: readonly RecordedRequest[], from = 0): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const request of requests.slice(from)) {
    const name = /relay node (\w+):/.exec(String(request.body?.messages?.[0]?.content ?? ''))?.[1];
    if (name !== undefined) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}
