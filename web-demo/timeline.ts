/**
 * A run's events as a timeline: one item per node run, model call, tool call and Lua node, each
 * with its start and end (ms from the run's start), tokens, attempts and retries, and for a node
 * the state before and after it (the run's input with each node's update merged in, in the order
 * the nodes ended), for a model call the captured request and response when payload capture is on.
 */
import type { AgentEvent } from '../src/events/event.js';

export type TimelineKind = 'node' | 'lua' | 'model' | 'tool';

export interface TimelineItem {
  id: string;
  kind: TimelineKind;
  label: string;
  node?: string;
  /** ms from the run's first event. */
  start: number;
  /** Absent while it runs. */
  end?: number;
  depth: number;
  /** `stopped`: still open when the run paused or was cancelled (not a failure). */
  status: 'running' | 'ok' | 'failed' | 'stopped';
  tokens?: { prompt: number; completion: number; total: number };
  attempts?: number;
  retries: number;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  update?: Record<string, unknown>;
  request?: unknown;
  response?: unknown;
  error?: { code: string; message: string };
  detail?: { arguments?: unknown; observation?: unknown; logs?: string[] };
  /** The seq of the event that ended it (for "run from here"). */
  endSeq?: number;
}

export interface Timeline {
  items: TimelineItem[];
  /** ms from the first to the last event (or now, while running). */
  total: number;
  tokens: number;
}

/** Builds the timeline; `kinds` (node name → kind from the agent's graph) marks Lua nodes. */
export function buildTimeline(events: readonly AgentEvent[], kinds: ReadonlyMap<string, string> = new Map(), now?: number): Timeline {
  const items: TimelineItem[] = [];
  const first = events[0] ? Date.parse(events[0].ts) : 0;
  const at = (event: AgentEvent) => Math.max(0, Date.parse(event.ts) - first);
  let state: Record<string, unknown> = {};
  const openNodes = new Map<string, TimelineItem[]>();
  const openCalls: TimelineItem[] = [];
  const openTools = new Map<string, TimelineItem>();
  let tokens = 0;
  const push = (item: TimelineItem) => {
    items.push(item);
    return item;
  };
  for (const event of events) {
    const node = event.node;
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'run_start':
        if (isRecord(data.input)) state = { ...data.input };
        break;
      case 'node_start': {
        if (node === undefined) break;
        const kind = kinds.get(node) === 'lua' ? 'lua' : 'node';
        const item = push({ id: `n${event.seq}`, kind, label: node, node, start: at(event), depth: 0, status: 'running', retries: 0, before: state });
        if (typeof data.attempt === 'number') item.attempts = data.attempt;
        openNodes.set(node, [...(openNodes.get(node) ?? []), item]);
        break;
      }
      case 'node_end': {
        const item = node === undefined ? undefined : openNodes.get(node)?.shift();
        const update = isRecord(data.update) ? data.update : {};
        state = { ...state, ...update };
        if (!item) break;
        item.end = at(event);
        item.status = 'ok';
        item.update = update;
        item.after = { ...(item.before ?? {}), ...update };
        item.endSeq = event.seq;
        break;
      }
      case 'llm_request':
        openCalls.push(
          push({
            id: `m${event.seq}`,
            kind: 'model',
            label: [text(data.model) ?? 'model', text(data.label) ? `(${text(data.label)})` : ''].filter(Boolean).join(' '),
            ...(node !== undefined ? { node } : {}),
            start: at(event),
            depth: 1,
            status: 'running',
            retries: 0,
            ...(data.request !== undefined ? { request: data.request } : {}),
          }),
        );
        break;
      case 'llm_response': {
        const index = findLastIndex(openCalls, (call) => call.node === node);
        const call = index >= 0 ? openCalls.splice(index, 1)[0]! : undefined;
        if (!call) break;
        call.end = at(event);
        call.status = isRecord(data.error) ? 'failed' : 'ok';
        if (isRecord(data.error)) call.error = { code: String(data.error.code), message: String(data.error.message) };
        if (typeof data.attempts === 'number') call.attempts = data.attempts;
        if (isRecord(data.usage)) {
          const usage = data.usage;
          call.tokens = { prompt: num(usage.prompt_tokens), completion: num(usage.completion_tokens), total: num(usage.total_tokens) };
          tokens += call.tokens.total;
        }
        if (data.response !== undefined) call.response = data.response;
        break;
      }
      case 'tool_start': {
        const item = push({ id: `t${event.seq}`, kind: 'tool', label: text(data.tool) ?? 'tool', ...(node !== undefined ? { node } : {}), start: at(event), depth: 1, status: 'running', retries: 0, detail: { arguments: data.arguments } });
        openTools.set(text(data.call_id) ?? item.id, item);
        break;
      }
      case 'tool_result': {
        const key = text(data.call_id) ?? '';
        const item = openTools.get(key);
        if (!item) break;
        openTools.delete(key);
        item.end = at(event);
        item.status = data.status === 'ok' ? 'ok' : 'failed';
        item.detail = { ...item.detail, observation: data.observation };
        break;
      }
      case 'log': {
        if (data.source === 'model') {
          const call = [...openCalls].reverse().find((candidate) => candidate.node === node);
          if (call) call.retries++;
        } else if ((data.source === 'lua' || data.source === 'prolog') && node !== undefined) {
          const item = openNodes.get(node)?.[0];
          if (item) item.detail = { ...item.detail, logs: [...(item.detail?.logs ?? []), text(data.message) ?? ''] };
        }
        break;
      }
      case 'error': {
        const item = node === undefined ? undefined : openNodes.get(node)?.[0];
        if (item && isRecord(data)) item.error = { code: String(data.code), message: String(data.message) };
        break;
      }
      case 'done': {
        // What was still open when the run ended stopped there: failed only when the run failed
        // (a run paused for an approval, or cancelled, left its node waiting, not broken).
        const endedAs = isRecord(data) && data.status === 'failed' ? 'failed' : 'stopped';
        for (const item of items) {
          if (item.end !== undefined) continue;
          item.end = at(event);
          item.status = endedAs;
        }
        break;
      }
      default:
        break;
    }
  }
  const last = events.at(-1);
  const ended = last?.type === 'done';
  const total = Math.max(1, last ? (ended || now === undefined ? at(last) : Math.max(at(last), now - first)) : 0, ...items.map((item) => item.end ?? 0));
  return { items, total, tokens };
}

function findLastIndex<T>(list: T[], test: (value: T) => boolean): number {
  for (let index = list.length - 1; index >= 0; index--) if (test(list[index]!)) return index;
  return list.length - 1;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
