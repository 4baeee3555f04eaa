/**
 * A synthetic long run as NDJSON, for the browser tests that measure the studio on long runs:
 * nodes step_0…step_19 in a cycle, each with a model call (tokens) and an update, and its end.
 */
/** A run of `count` events: nodes with updates, model calls with tokens, and its end. */
export function syntheticRun(count: number): string {
  const runId = `synthetic-${count}`;
  const events: Record<string, unknown>[] = [];
  const start = Date.parse('2026-01-01T00:00:00Z');
  const push = (type: string, data: Record<string, unknown>, node?: string) =>
    events.push({
      type,
      run_id: runId,
      seq: events.length + 1,
      ts: new Date(start + events.length * 10).toISOString(),
      ...(node ? { node } : {}),
      data,
    });
  push('run_start', { agent: 'synthetic', input: { topic: 'tea' } });
  for (let index = 0; events.length < count - 1; index++) {
    const node = `step_${index % 20}`;
    push('node_start', {}, node);
    push('llm_request', { model: 'mock-model', kind: 'chat' }, node);
    push(
      'llm_response',
      {
        model: 'mock-model',
        duration_ms: 20,
        usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
        finish_reason: 'stop',
      },
      node,
    );
    push('node_end', { update: { [`value_${index % 5}`]: index }, duration_ms: 30 }, node);
  }
  events.length = count - 1;
  push('done', { status: 'completed', stop_reason: 'completed', state: { topic: 'tea' } });
  return events.map((event) => JSON.stringify(event)).join('\n') + '\n';
}
