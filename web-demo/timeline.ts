/**
 * A run's events as a timeline: one item per node run, model call, tool call, Lua node and pause,
 * each with its start and end (ms from the run's start), tokens, attempts and retries, and for a
 * node the state before and after it (the run's input with each node's update merged in, in the
 * order the nodes ended), for a model call the captured request and response when payload capture
 * is on, for a pause what it waited for and the answer (who approved or denied, when).
 *
 * One reducer per event type (`REDUCERS`, a mapped type over every event type): a new event type
 * does not compile until it has one here, even when it adds nothing to the timeline.
 */
import type { AgentEvent, EventType } from '../src/core/events.js';
import { isPlainObject } from '../src/util/plain-object.js';

export type TimelineKind = 'node' | 'lua' | 'model' | 'tool' | 'pause';

/**
 * `stopped`: still open when the run ended (not a failure); `paused`: open when the run paused
 * (a tool approval, an interrupt); `cancelled`: open, or a model call, when the run was cancelled.
 */
export type TimelineStatus = 'running' | 'ok' | 'failed' | 'stopped' | 'paused' | 'cancelled';

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
  status: TimelineStatus;
  tokens?: { prompt: number; completion: number; total: number };
  attempts?: number;
  retries: number;
  /** A node run that continued after a pause (the run was resumed). */
  resumed?: true;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  update?: Record<string, unknown>;
  request?: unknown;
  response?: unknown;
  /** A streamed model call: the chunks received so far and their length. */
  streamed?: { chunks: number; chars: number };
  /** A model call: what it was for within its action (the engine's `purpose`, or a reflection step's). */
  purpose?: string;
  model?: string;
  /** A streamed model call: ms from the request to the first chunk. */
  firstChunk?: number;
  /** Characters of thinking the model gave (its text is in the response with payload capture). */
  reasoningChars?: number;
  error?: { code: string; message: string };
  detail?: { arguments?: unknown; observation?: unknown; logs?: string[] };
  /** A pause: what it waited for and, once the run went on, the answer. */
  pause?: PauseDetail;
  /** The seq of the event that ended it (for "run from here"). */
  endSeq?: number;
}

export interface PauseDetail {
  /** `approval`: a tool waits for a person's yes or no; `interrupt`: an interrupt before or after a node. */
  reason: 'approval' | 'interrupt';
  position?: 'before' | 'after';
  tool?: string;
  arguments?: unknown;
  /** When the run went on (ISO); absent while it waits. */
  resumed_at?: string;
  /** The approval's answer, as the engine recorded it (`log` source `approval`). */
  answer?: { approved: boolean; role: string; at: string };
}

export interface Timeline {
  items: TimelineItem[];
  /** ms from the first to the last event (or now, while running). */
  total: number;
  tokens: number;
}

/** What the reducers share while the events are folded. */
interface Builder {
  items: TimelineItem[];
  first: number;
  kinds: ReadonlyMap<string, string>;
  state: Record<string, unknown>;
  openNodes: Map<string, TimelineItem[]>;
  openCalls: TimelineItem[];
  openTools: Map<string, TimelineItem>;
  tokens: number;
  /** The pause the run is in (from its `interrupt` until the next event after `done`). */
  pause?: TimelineItem | undefined;
  /** The newest pause, answered or not (the approval log comes after the resume). */
  lastPause?: TimelineItem | undefined;
  /** Set by `done` of a paused run: the next node start continues it. */
  resuming: boolean;
  /** Calls with neither purpose nor label since a node's last reflection attempt (its generator or corrector). */
  unnamedCalls: Map<string, TimelineItem[]>;
}

type Reducer<T extends EventType> = (builder: Builder, event: AgentEvent<T>) => void;

/** Events that add nothing to the timeline (the action views and the summary read them). */
const nothing = (): void => undefined;

const REDUCERS: { [T in EventType]: Reducer<T> } = {
  run_start(builder, event) {
    if (isPlainObject(event.data.input)) builder.state = { ...event.data.input };
  },
  node_start(builder, event) {
    const node = event.node;
    if (node === undefined) return;
    const kind = builder.kinds.get(node) === 'lua' ? 'lua' : 'node';
    const item = push(builder, {
      id: `n${event.seq}`,
      kind,
      label: node,
      node,
      start: at(builder, event),
      depth: 0,
      status: 'running',
      retries: 0,
      before: builder.state,
    });
    if (typeof event.data.attempt === 'number') item.attempts = event.data.attempt;
    if (builder.resuming) item.resumed = true;
    builder.resuming = false;
    builder.openNodes.set(node, [...(builder.openNodes.get(node) ?? []), item]);
  },
  node_end(builder, event) {
    const node = event.node;
    const item = node === undefined ? undefined : builder.openNodes.get(node)?.shift();
    const update = isPlainObject(event.data.update) ? event.data.update : {};
    builder.state = { ...builder.state, ...update };
    if (!item) return;
    item.end = at(builder, event);
    item.status = 'ok';
    item.update = update;
    item.after = { ...(item.before ?? {}), ...update };
    item.endSeq = event.seq;
  },
  llm_request(builder, event) {
    const data = event.data;
    const model = text(data.model) ?? 'model';
    const label = text(data.label);
    const purpose = text(data.purpose);
    const call = push(builder, {
      id: `m${event.seq}`,
      kind: 'model',
      label: purpose ? `${purpose} · ${model}` : label ? `${model} (${label})` : model,
      ...(purpose ? { purpose } : {}),
      model,
      ...(event.node !== undefined ? { node: event.node } : {}),
      start: at(builder, event),
      depth: 1,
      status: 'running',
      retries: 0,
      ...(data.request !== undefined ? { request: data.request } : {}),
    });
    builder.openCalls.push(call);
    if (!purpose && !label && event.node !== undefined)
      builder.unnamedCalls.set(event.node, [...(builder.unnamedCalls.get(event.node) ?? []), call]);
  },
  llm_response(builder, event) {
    const call = takeLast(builder.openCalls, (candidate) => candidate.node === event.node);
    if (!call) return;
    const data = event.data;
    call.end = at(builder, event);
    if (isPlainObject(data.error)) {
      call.error = { code: String(data.error.code), message: String(data.error.message) };
      // A call the run's cancellation stopped did not fail.
      call.status = call.error.code === 'CANCELLED' ? 'cancelled' : 'failed';
    } else call.status = 'ok';
    if (typeof data.attempts === 'number') call.attempts = data.attempts;
    if (isPlainObject(data.usage)) {
      const usage = data.usage;
      call.tokens = {
        prompt: num(usage.prompt_tokens),
        completion: num(usage.completion_tokens),
        total: num(usage.total_tokens),
      };
      builder.tokens += call.tokens.total;
    }
    if (data.response !== undefined) call.response = data.response;
    if (typeof data.reasoning_chars === 'number' && data.reasoning_chars > 0)
      call.reasoningChars = data.reasoning_chars;
  },
  answer_chunk(builder, event) {
    const call = findLast(builder.openCalls, (candidate) => candidate.node === event.node);
    if (!call) return;
    call.firstChunk ??= at(builder, event) - call.start;
    const streamed = (call.streamed ??= { chunks: 0, chars: 0 });
    streamed.chunks++;
    streamed.chars += text(event.data.content)?.length ?? 0;
  },
  reflection_attempt(builder, event) {
    // The loop's generator and corrector are actions of their own: their calls carry no purpose,
    // and the attempt that follows them says which step they were.
    const node = event.node;
    if (node === undefined) return;
    const source = event.data.source === 'corrector' ? 'corrector' : 'generator';
    for (const call of builder.unnamedCalls.get(node) ?? []) {
      call.purpose = `${source} (attempt ${num(event.data.iteration)})`;
      call.label = `${call.purpose} · ${call.model ?? 'model'}`;
    }
    builder.unnamedCalls.delete(node);
  },
  thinking: nothing,
  tool_start(builder, event) {
    const data = event.data;
    const item = push(builder, {
      id: `t${event.seq}`,
      kind: 'tool',
      label: text(data.tool) ?? 'tool',
      ...(event.node !== undefined ? { node: event.node } : {}),
      start: at(builder, event),
      depth: 1,
      status: 'running',
      retries: 0,
      detail: { arguments: data.arguments },
    });
    builder.openTools.set(text(data.call_id) ?? item.id, item);
  },
  tool_result(builder, event) {
    const key = text(event.data.call_id) ?? '';
    const item = builder.openTools.get(key);
    if (!item) return;
    builder.openTools.delete(key);
    item.end = at(builder, event);
    item.status = event.data.status === 'ok' ? 'ok' : 'failed';
    item.detail = { ...item.detail, observation: event.data.observation };
  },
  answer: nothing,
  // The interrupt that follows says where the run waits; this says for what.
  confirmation_request: nothing,
  interrupt(builder, event) {
    const pending: Record<string, unknown> = isPlainObject(event.data.pending) ? event.data.pending : {};
    const approval = pending.kind === 'tool_confirmation';
    const tool = text(pending.tool);
    const position = event.data.position === 'after' ? 'after' : 'before';
    const node = event.node ?? text(event.data.node);
    const pause: PauseDetail = approval
      ? { reason: 'approval', ...(tool ? { tool } : {}), arguments: pending.arguments }
      : { reason: 'interrupt', position };
    const label = approval
      ? `waiting for approval of ${tool ?? 'a tool'}`
      : `interrupt ${position} ${node ?? 'a node'}`;
    builder.pause = push(builder, {
      id: `p${event.seq}`,
      kind: 'pause',
      label,
      ...(node !== undefined ? { node } : {}),
      start: at(builder, event),
      depth: 0,
      status: 'paused',
      retries: 0,
      pause,
    });
    builder.lastPause = builder.pause;
  },
  log(builder, event) {
    const data = event.data;
    const node = event.node;
    if (data.source === 'model') {
      const call = findLast(builder.openCalls, (candidate) => candidate.node === node);
      if (call) call.retries++;
    } else if (data.source === 'approval') {
      const pause = builder.lastPause?.pause;
      if (pause && typeof data.approved === 'boolean')
        pause.answer = { approved: data.approved, role: text(data.role) ?? 'unknown', at: event.ts };
      if (builder.lastPause && pause?.answer)
        builder.lastPause.label = `${pause.tool ?? 'tool'} ${pause.answer.approved ? 'approved' : 'denied'} (role ${pause.answer.role})`;
    } else if ((data.source === 'lua' || data.source === 'prolog') && node !== undefined) {
      const item = builder.openNodes.get(node)?.[0];
      if (item) item.detail = { ...item.detail, logs: [...(item.detail?.logs ?? []), text(data.message) ?? ''] };
    }
  },
  error(builder, event) {
    const node = event.node;
    const item = node === undefined ? undefined : builder.openNodes.get(node)?.[0];
    if (item) item.error = { code: String(event.data.code), message: String(event.data.message) };
  },
  done(builder, event) {
    // What was still open when the run ended stopped there: failed only when the run failed; a
    // run paused for an approval or an interrupt left its node paused, a cancelled run cancelled.
    const status = event.data.status;
    const endedAs: TimelineStatus =
      status === 'failed'
        ? 'failed'
        : status === 'cancelled'
          ? 'cancelled'
          : status === 'interrupted'
            ? 'paused'
            : 'stopped';
    for (const item of builder.items) {
      if (item.end !== undefined || item === builder.pause) continue;
      item.end = at(builder, event);
      item.status = endedAs;
    }
    // A resumed run goes on in the same event list: what it starts is new, nothing is reopened.
    builder.openNodes.clear();
    builder.openCalls.length = 0;
    builder.openTools.clear();
    builder.resuming = status === 'interrupted';
  },
};

/** Builds the timeline; `kinds` (node name → kind from the agent's graph) marks Lua nodes. */
export function buildTimeline(
  events: readonly AgentEvent[],
  kinds: ReadonlyMap<string, string> = new Map(),
  now?: number,
): Timeline {
  const builder: Builder = {
    items: [],
    first: events[0] ? Date.parse(events[0].ts) : 0,
    kinds,
    state: {},
    openNodes: new Map(),
    openCalls: [],
    openTools: new Map(),
    tokens: 0,
    resuming: false,
    unnamedCalls: new Map(),
  };
  for (const event of events) {
    // The first event after a paused run's `done` is its resume: the wait ends there.
    if (builder.pause && builder.resuming) endPause(builder, builder.pause, event);
    (REDUCERS[event.type] as Reducer<EventType>)(builder, event);
  }
  const last = events.at(-1);
  const ended = last?.type === 'done';
  const total = Math.max(
    1,
    last ? (ended || now === undefined ? at(builder, last) : Math.max(at(builder, last), now - builder.first)) : 0,
    ...builder.items.map((item) => item.end ?? 0),
  );
  return { items: builder.items, total, tokens: builder.tokens };
}

/** One round of a run: from a node run to the next run of a node that already ran in it. */
export interface TimelineRound {
  /** 1, 2, 3… */
  number: number;
  items: TimelineItem[];
  start: number;
  end: number;
  nodes: number;
  calls: number;
  tokens: number;
}

/**
 * Groups the items by round: a round ends where a node that already ran in it runs again (a loop
 * back, a reflection's next attempt, a retry), so a long loop reads as its iterations. The items
 * a node run contains (its calls and tools) and pauses stay in the round they happened in.
 */
export function groupRounds(items: readonly TimelineItem[]): TimelineRound[] {
  const rounds: TimelineRound[] = [];
  let ran = new Set<string>();
  let current: TimelineRound | undefined;
  for (const item of items) {
    const isNode = item.kind === 'node' || item.kind === 'lua';
    // The resumed part of a paused node continues its round.
    if (!current || (isNode && item.node !== undefined && ran.has(item.node) && !item.resumed)) {
      current = {
        number: rounds.length + 1,
        items: [],
        start: item.start,
        end: item.start,
        nodes: 0,
        calls: 0,
        tokens: 0,
      };
      rounds.push(current);
      ran = new Set();
    }
    current.items.push(item);
    current.end = Math.max(current.end, item.end ?? item.start);
    if (isNode) {
      if (item.node !== undefined) ran.add(item.node);
      if (!item.resumed) current.nodes++;
    }
    if (item.kind === 'model') current.calls++;
    current.tokens += item.tokens?.total ?? 0;
  }
  return rounds;
}

function endPause(builder: Builder, item: TimelineItem, event: AgentEvent): void {
  item.end = at(builder, event);
  item.status = 'ok';
  item.pause = { ...item.pause!, resumed_at: event.ts };
  builder.pause = undefined;
}

function push(builder: Builder, item: TimelineItem): TimelineItem {
  builder.items.push(item);
  return item;
}

function at(builder: Builder, event: AgentEvent): number {
  return Math.max(0, Date.parse(event.ts) - builder.first);
}

/** The newest item that passes the test, else the newest one. */
function findLast(list: TimelineItem[], test: (value: TimelineItem) => boolean): TimelineItem | undefined {
  for (let index = list.length - 1; index >= 0; index--) if (test(list[index]!)) return list[index];
  return list.at(-1);
}

/** Like findLast, and removes it from the list. */
function takeLast(list: TimelineItem[], test: (value: TimelineItem) => boolean): TimelineItem | undefined {
  const found = findLast(list, test);
  if (found) list.splice(list.lastIndexOf(found), 1);
  return found;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
