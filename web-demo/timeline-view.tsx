/**
 * The run's timeline as a waterfall: nodes, Lua nodes, model calls and tool calls, each a bar
 * placed at its start with its duration, with tokens and retries beside it. Selecting an item
 * shows its details: a node's state before and after as a diff, a model call's captured request
 * and response (when payload capture is on), a tool's arguments and observation.
 */
import { useEffect, useState } from 'preact/hooks';
import { formatJson } from './dom.js';
import { diffState } from './diff.js';
import { parseStateJson } from './state-json.js';
import { seconds } from './model-calls-view.js';

/** A duration: milliseconds under a second (most nodes), else seconds. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : seconds(ms);
}
import { buildTimeline, groupRounds, type TimelineItem, type TimelineRound } from './timeline.js';
import { VirtualList } from './virtual-list.js';
import { ModelCallDetail } from './model-call-detail.js';
import type { AgentEvent } from '../src/core/events.js';

const KIND_LABEL: Record<TimelineItem['kind'], string> = { node: 'node', lua: 'Lua', model: 'model', tool: 'tool', pause: 'pause' };

/** The height of a timeline row, round headers included (styles.css gives them this height). */
const ROW_PX = 29;

export interface TimelineProps {
  events: readonly AgentEvent[];
  kinds: ReadonlyMap<string, string>;
  running: boolean;
  /** "Run from here" for a completed node (time travel), when the back-end can. */
  onRunFrom?: ((node: string, state: Record<string, unknown>) => void) | undefined;
  /** The node picked on the graph: its items are marked, its last run selected and scrolled to. */
  focusNode?: string | undefined;
}

/** A row of the list: a round's header (when the run has several rounds) or an item. */
type Row = { round: TimelineRound } | { item: TimelineItem };

export function TimelineView({ events, kinds, running, onRunFrom, focusNode }: TimelineProps) {
  const [selected, setSelected] = useState<string | undefined>();
  const [folded, setFolded] = useState<ReadonlySet<number>>(new Set());
  const [scrollTo, setScrollTo] = useState<string | undefined>();
  const timeline = buildTimeline(events, kinds, running ? Date.now() : undefined);
  // A node picked on the graph: its last run is selected (its state shows) and brought into view,
  // its round unfolded.
  useEffect(() => {
    if (focusNode === undefined) return;
    const last = lastRunOf(timeline.items, focusNode);
    if (!last) return;
    setSelected(last.id);
    setScrollTo(last.id);
    const round = groupRounds(timeline.items).find((candidate) => candidate.items.includes(last));
    if (round) setFolded((before) => (before.has(round.number) ? new Set([...before].filter((number) => number !== round.number)) : before));
  }, [focusNode]);
  if (timeline.items.length === 0) return null;
  const chosen = timeline.items.find((item) => item.id === selected);
  const nodes = timeline.items.filter((item) => (item.kind === 'node' || item.kind === 'lua') && !item.resumed).length;
  const calls = timeline.items.filter((item) => item.kind === 'model').length;
  const streaming = timeline.items.filter((item) => item.streamed && item.end === undefined).length;
  const rounds = groupRounds(timeline.items);
  const grouped = rounds.length > 1;
  const rows: Row[] = grouped ? rounds.flatMap((round) => [{ round }, ...(folded.has(round.number) ? [] : round.items.map((item) => ({ item })))]) : timeline.items.map((item) => ({ item }));
  const fold = (number: number) => setFolded((before) => {
    const next = new Set(before);
    if (!next.delete(number)) next.add(number);
    return next;
  });
  const allFolded = grouped && folded.size === rounds.length;
  const scrollIndex = scrollTo === undefined ? -1 : rows.findIndex((row) => 'item' in row && row.item.id === scrollTo);
  const marked = focusNode === undefined ? 0 : timeline.items.filter((item) => item.node === focusNode).length;
  return (
    <section class="run-section section-timeline" aria-labelledby="heading-timeline">
      <h3 id="heading-timeline">Timeline</h3>
      <p class="note" id="timeline-summary">
        {`${duration(timeline.total)} · ${grouped ? `${rounds.length} rounds · ` : ''}${nodes} node run${nodes === 1 ? '' : 's'} · ${calls} model call${calls === 1 ? '' : 's'} · ${timeline.tokens} tokens${streaming > 0 ? ` (${streaming} call${streaming === 1 ? '' : 's'} streaming: counted when ${streaming === 1 ? 'it ends' : 'they end'})` : ''}. Select an item for its details.`}
        {focusNode !== undefined ? <span id="timeline-focus">{` ${marked} item${marked === 1 ? '' : 's'} of node ${focusNode} marked.`}</span> : null}
        {grouped ? (
          <>
            {' '}
            <button type="button" id="timeline-fold-all" onClick={() => setFolded(allFolded ? new Set() : new Set(rounds.map((round) => round.number)))}>{allFolded ? 'Unfold every round' : 'Fold every round'}</button>
          </>
        ) : null}
      </p>
      <VirtualList
        id="timeline"
        class="timeline"
        label="Timeline of the run"
        count={rows.length}
        rowHeight={ROW_PX}
        height={420}
        scrollTo={scrollIndex >= 0 ? scrollIndex : undefined}
        row={(index) => {
          const row = rows[index]!;
          if ('round' in row) return <RoundRow key={`r${row.round.number}`} round={row.round} total={timeline.total} folded={folded.has(row.round.number)} onFold={fold} />;
          const item = row.item;
          return (
            <li key={item.id} class={`tl-row kind-${item.kind} status-${item.status} depth-${item.depth}${focusNode !== undefined && item.node === focusNode ? ' tl-match' : ''}`}>
              <button type="button" class="tl-item" data-item={item.id} data-kind={item.kind} aria-pressed={item.id === selected} onClick={() => setSelected(item.id === selected ? undefined : item.id)}>
                <span class="tl-label">
                  <span class="tl-kind">{KIND_LABEL[item.kind]}</span> {item.label}
                  {item.resumed ? <span class="tl-resumed"> (resumed)</span> : null}
                </span>
                <span class="tl-track" aria-hidden="true">
                  <span class="tl-bar" style={{ left: `${(item.start / timeline.total) * 100}%`, width: `${(((item.end ?? timeline.total) - item.start) / timeline.total) * 100}%` }} />
                </span>
                <span class="tl-figures">{figures(item)}</span>
              </button>
            </li>
          );
        }}
      />
      {chosen ? <ItemDetail item={chosen} onRunFrom={onRunFrom} /> : null}
    </section>
  );
}

/** The last run of a node (a node or Lua item), else its last item of any kind. */
function lastRunOf(items: readonly TimelineItem[], node: string): TimelineItem | undefined {
  let any: TimelineItem | undefined;
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index]!;
    if (item.node !== node) continue;
    if (item.kind === 'node' || item.kind === 'lua') return item;
    any ??= item;
  }
  return any;
}

/** A round's header: its number and counts, its span on the track; folds its items. */
function RoundRow({ round, total, folded, onFold }: { round: TimelineRound; total: number; folded: boolean; onFold: (number: number) => void }) {
  const counts = [`${round.nodes} node run${round.nodes === 1 ? '' : 's'}`, `${round.calls} call${round.calls === 1 ? '' : 's'}`, ...(round.tokens > 0 ? [`${round.tokens} tok`] : [])].join(' · ');
  return (
    <li class="tl-row tl-round-row">
      <button type="button" class="tl-item tl-round" data-round={round.number} aria-expanded={!folded} onClick={() => onFold(round.number)}>
        <span class="tl-label">
          <span class="tl-fold" aria-hidden="true">{folded ? '▸' : '▾'}</span>
          {` Round ${round.number}`}
          <span class="tl-round-counts">{` · ${counts}`}</span>
        </span>
        <span class="tl-track" aria-hidden="true">
          <span class="tl-bar tl-round-bar" style={{ left: `${(round.start / total) * 100}%`, width: `${((round.end - round.start) / total) * 100}%` }} />
        </span>
        <span class="tl-figures">{duration(round.end - round.start)}</span>
      </button>
    </li>
  );
}

function figures(item: TimelineItem): string {
  const parts = [item.end === undefined ? (item.kind === 'pause' ? 'waiting' : item.streamed ? 'streaming' : 'running') : duration(item.end - item.start)];
  if (item.tokens) parts.push(`${item.tokens.total} tok`);
  else if (item.streamed) parts.push(`${item.streamed.chars} chars in ${item.streamed.chunks} chunk${item.streamed.chunks === 1 ? '' : 's'}`);
  if (item.retries > 0) parts.push(`${item.retries} retr${item.retries === 1 ? 'y' : 'ies'}`);
  parts.push(STATUS_NOTE[item.status]);
  return parts.filter(Boolean).join(' · ');
}

/** What each status adds to an item's figures (a running or finished item says nothing more). */
const STATUS_NOTE: Record<TimelineItem['status'], string> = {
  running: '',
  ok: '',
  failed: 'failed',
  stopped: 'stopped with the run',
  paused: 'paused',
  cancelled: 'cancelled',
};

function ItemDetail({ item, onRunFrom }: { item: TimelineItem; onRunFrom: TimelineProps['onRunFrom'] }) {
  const isNode = item.kind === 'node' || item.kind === 'lua';
  return (
    <div class="tl-detail" id="timeline-detail" role="region" aria-label={`Details of ${KIND_LABEL[item.kind]} ${item.label}`}>
      <h4>
        {`${KIND_LABEL[item.kind]} ${item.label}`}
        {item.node && !isNode ? ` in ${item.node}` : ''}
      </h4>
      {item.pause ? <PauseNote item={item} /> : null}
      <p class="note">
        {figures(item)}
        {item.tokens ? ` (prompt ${item.tokens.prompt}, completion ${item.tokens.completion})` : ''}
        {item.attempts !== undefined && item.attempts > 1 ? ` · ${item.attempts} attempts` : ''}
      </p>
      {item.error ? <p class="bad-text"><code>{item.error.code}</code> {item.error.message}</p> : null}
      {isNode ? (
        item.after ? (
          <>
            <StateDiff before={item.before} after={item.after} />
            {onRunFrom && item.node ? <RunFrom key={item.id} node={item.node} state={item.after} onRunFrom={onRunFrom} /> : null}
          </>
        ) : (
          <p class="muted">The node has not ended: no state after it yet.</p>
        )
      ) : null}
      {item.detail?.logs ? <pre class="tl-pre" tabindex={0}>{item.detail.logs.join('\n')}</pre> : null}
      {item.kind === 'model' ? <ModelCallDetail item={item} duration={duration} /> : null}
      {item.kind === 'tool' ? (
        <div class="payloads">
          <div>
            <h5>Arguments</h5>
            <pre class="tl-pre" tabindex={0}>{formatJson(item.detail?.arguments ?? null)}</pre>
          </div>
          <div>
            <h5>Observation</h5>
            <pre class="tl-pre" tabindex={0}>{formatJson(item.detail?.observation ?? null)}</pre>
          </div>
        </div>
      ) : null}
    </div>
  );
}

/** A pause: what it waited for, since when, and the answer (who, when, yes or no). */
function PauseNote({ item }: { item: TimelineItem }) {
  const pause = item.pause!;
  const what = pause.reason === 'approval' ? `The run waited for a person to approve ${pause.tool ?? 'a tool'}` : `The run stopped at an interrupt ${pause.position ?? 'before'} ${item.node ?? 'a node'}`;
  return (
    <div class="tl-pause" id="timeline-pause">
      <p>{`${what}${pause.resumed_at ? `; it went on at ${clockTime(pause.resumed_at)}.` : '; it is still waiting.'}`}</p>
      {pause.answer ? (
        <p id="timeline-approval">
          <strong class={pause.answer.approved ? 'ok-text' : 'bad-text'}>{pause.answer.approved ? 'Approved' : 'Denied'}</strong>
          {` by role ${pause.answer.role} at ${clockTime(pause.answer.at)}.`}
        </p>
      ) : null}
      {pause.reason === 'approval' ? (
        <>
          <h5>Arguments</h5>
          <pre class="tl-pre" tabindex={0}>{formatJson(pause.arguments ?? null)}</pre>
        </>
      ) : null}
    </div>
  );
}

/** The time of day of an ISO timestamp, to the second (the run's own clock, in the local zone). */
function clockTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/**
 * "Run from here": the state after the node in a JSON editor, then a new run that continues
 * after the node from that state (linked to this run in the history).
 */
function RunFrom({ node, state, onRunFrom }: { node: string; state: Record<string, unknown>; onRunFrom: NonNullable<TimelineProps['onRunFrom']> }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(() => JSON.stringify(state, null, 2));
  const [error, setError] = useState('');
  if (!open) {
    return (
      <button type="button" id="run-from-here" onClick={() => setOpen(true)}>
        Run from here…
      </button>
    );
  }
  const start = () => {
    const read = parseStateJson(text);
    if ('error' in read) return setError(read.error);
    setError('');
    onRunFrom(node, read.state);
  };
  return (
    <div class="run-from" id="run-from">
      <label for="run-from-state">{`State after ${node} (edit it, then start a new run that continues after ${node})`}</label>
      <textarea id="run-from-state" rows={Math.min(16, text.split('\n').length + 1)} spellcheck={false} value={text} onInput={(event) => setText(event.currentTarget.value)} />
      <p class="bad-text" role="alert" id="run-from-error">{error}</p>
      <div class="row">
        <button type="button" class="primary" id="run-from-start" onClick={start}>Start run from here</button>
        <button type="button" id="run-from-cancel" onClick={() => setOpen(false)}>Cancel</button>
      </div>
    </div>
  );
}

/** The state before and after a node, key by key: added, removed, changed, unchanged (folded). */
export function StateDiff({ before, after }: { before: Record<string, unknown> | undefined; after: Record<string, unknown> | undefined }) {
  const changes = diffState(before, after);
  const same = changes.filter((change) => change.kind === 'same');
  const moved = changes.filter((change) => change.kind !== 'same');
  return (
    <div class="state-diff" id="state-diff">
      <table>
        <caption class="visually-hidden">State before and after</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Before</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {moved.length === 0 ? (
            <tr>
              <td colSpan={3} class="muted">No key changed.</td>
            </tr>
          ) : null}
          {moved.map((change) => (
            <tr key={change.key} class={`diff-${change.kind}`}>
              <th scope="row">
                <code>{change.key}</code> <span class="diff-kind">{change.kind}</span>
              </th>
              <td><pre tabindex={0}>{change.kind === 'added' ? '—' : formatJson(change.before, 2000)}</pre></td>
              <td><pre tabindex={0}>{change.kind === 'removed' ? '—' : formatJson(change.after, 2000)}</pre></td>
            </tr>
          ))}
        </tbody>
      </table>
      {same.length > 0 ? <p class="note">{`Unchanged: ${same.map((change) => change.key).join(', ')}`}</p> : null}
    </div>
  );
}
