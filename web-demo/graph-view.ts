/**
 * Draws an agent graph as SVG: nodes in layers from `__start__` downwards (breadth-first
 * depth), forward edges as straight arrows, edges going back up as curves on the right.
 * `highlightGraph` marks the run on it without redrawing: the current node, the ones that ran (with
 * how often), the ones that did not run in a run that ended, the pause, the node picked, and the
 * pauses set for the next run. Nodes are buttons (click or Enter picks one: see run-view.tsx).
 */
import { svgElement } from './dom.js';
import type { AgentGraph, GraphNode } from './agent-graph.js';
import { START } from '../src/spec/agent-spec.js';

const NODE_WIDTH = 150;
const NODE_HEIGHT = 34;
const LAYER_GAP = 62;
const COLUMN_GAP = 24;
const MARGIN = 16;

/** Builds the SVG of a graph. */
export function renderGraph(graph: AgentGraph): SVGElement {
  const depth = layerDepths(graph);
  const sparse: string[][] = [];
  for (const node of graph.nodes) {
    const layer = depth.get(node.name) ?? 0;
    (sparse[layer] ??= []).push(node.name);
  }
  const layers = sparse.filter((layer) => layer !== undefined && layer.length > 0);
  const widest = Math.max(1, ...layers.map((layer) => layer.length));
  const width = MARGIN * 2 + widest * NODE_WIDTH + (widest - 1) * COLUMN_GAP + 60;
  const height = MARGIN * 2 + layers.length * NODE_HEIGHT + (layers.length - 1) * LAYER_GAP;
  const position = new Map<string, { x: number; y: number }>();
  layers.forEach((layer, layerIndex) => {
    const rowWidth = layer.length * NODE_WIDTH + (layer.length - 1) * COLUMN_GAP;
    layer.forEach((name, column) => {
      position.set(name, {
        x: (width - 60 - rowWidth) / 2 + column * (NODE_WIDTH + COLUMN_GAP),
        y: MARGIN + layerIndex * (NODE_HEIGHT + LAYER_GAP),
      });
    });
  });

  const svg = svgElement('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width: String(width),
    class: 'graph',
    role: 'group',
    'aria-label': `Agent graph: ${graph.nodes.length - 2} node${graph.nodes.length === 3 ? '' : 's'}; pick a node to see its runs and state`,
  });
  svg.appendChild(
    svgElement(
      'defs',
      {},
      svgElement(
        'marker',
        {
          id: 'arrow',
          viewBox: '0 0 10 10',
          refX: '9',
          refY: '5',
          markerWidth: '7',
          markerHeight: '7',
          orient: 'auto-start-reverse',
        },
        svgElement('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' }),
      ),
    ),
  );
  let backEdges = 0;
  for (const edge of graph.edges) {
    const from = position.get(edge.from);
    const to = position.get(edge.to);
    if (!from || !to) continue;
    const forward = to.y > from.y;
    let path: string;
    let labelAt: { x: number; y: number; anchor?: string };
    if (forward) {
      const x1 = from.x + NODE_WIDTH / 2;
      const y1 = from.y + NODE_HEIGHT;
      const x2 = to.x + NODE_WIDTH / 2;
      const y2 = to.y;
      path = `M${x1},${y1} L${x2},${y2}`;
      // Labels of edges leaving one node alternate in height and sit on the side the edge leans
      // to, so a node with several condition edges does not print them over each other.
      const sibling = graph.edges.filter((other) => other.from === edge.from && other.label).indexOf(edge);
      const along = sibling % 2 === 0 ? 0.35 : 0.6;
      const leftward = x2 < x1 - 1;
      labelAt = {
        x: x1 + (x2 - x1) * along + (leftward ? -4 : 4),
        y: y1 + (y2 - y1) * along,
        anchor: leftward ? 'end' : 'start',
      };
    } else {
      backEdges++;
      const bend = width - 50 + (backEdges % 3) * 12;
      const x1 = from.x + NODE_WIDTH;
      const y1 = from.y + NODE_HEIGHT / 2;
      const x2 = to.x + NODE_WIDTH;
      const y2 = to.y + NODE_HEIGHT / 2;
      path = `M${x1},${y1} C${bend},${y1} ${bend},${y2} ${x2 + 2},${y2}`;
      labelAt = { x: Math.min(bend - 40, x1 + 8), y: (y1 + y2) / 2 };
    }
    const group = svgElement(
      'g',
      { class: `edge${forward ? '' : ' back'}` },
      svgElement('path', { d: path, 'marker-end': 'url(#arrow)' }),
    );
    // Condition labels arrive shortened with their `when` at the end; cutting them here would drop it.
    if (edge.label)
      group.appendChild(
        svgElement(
          'text',
          {
            x: String(labelAt.x),
            y: String(labelAt.y),
            class: labelAt.anchor === 'end' ? 'edge-label end' : 'edge-label',
          },
          shorten(edge.label, 34),
        ),
      );
    if (edge.detail) group.appendChild(svgElement('title', {}, edge.detail));
    svg.appendChild(group);
  }
  for (const node of graph.nodes) {
    const at = position.get(node.name)!;
    const terminal = node.kind === 'start' || node.kind === 'end';
    svg.appendChild(
      svgElement(
        'g',
        {
          class: `node${terminal ? ' terminal' : ''}${node.loopBody ? ' loop' : ''}${node.fansOutOver ? ' fan-out' : ''}`,
          'data-node': node.name,
          ...(terminal ? {} : { role: 'button', tabindex: '0', 'aria-pressed': 'false' }),
        },
        svgElement('rect', {
          x: String(at.x),
          y: String(at.y),
          width: String(NODE_WIDTH),
          height: String(NODE_HEIGHT),
          rx: '8',
        }),
        svgElement(
          'text',
          { x: String(at.x + NODE_WIDTH / 2), y: String(at.y + (terminal ? 21 : 15)), class: 'node-name' },
          shorten(node.name, 20),
        ),
        terminal
          ? null
          : svgElement(
              'text',
              { x: String(at.x + NODE_WIDTH / 2), y: String(at.y + 28), class: 'node-kind' },
              shorten(kindLine(node), 24),
            ),
        svgElement('title', {}, nodeTitle(node)),
        // How often it ran, or where the run waits (set by highlightGraph): just above its top right corner.
        terminal
          ? null
          : svgElement('text', { x: String(at.x + NODE_WIDTH - 2), y: String(at.y - 4), class: 'node-count' }, ''),
      ),
    );
  }
  return svg;
}

/** The small line under a node's name: its kind, or for a loop its body, for a fan-out its items. */
function kindLine(node: GraphNode): string {
  if (node.loopBody) return `↻ ${node.loopBody.join(' → ')}`;
  if (node.fansOutOver) return '⇉ each item';
  return node.kind;
}

function nodeTitle(node: GraphNode): string {
  if (node.loopBody) return `${node.name} (while_loop; repeats: ${node.loopBody.join(' → ')})`;
  if (node.fansOutOver) return `${node.name} (dynamic_parallel; one branch per item of ${node.fansOutOver})`;
  return `${node.name} (${node.kind})`;
}

/** What the graph marks: the running node, the ones that ran, and where the run failed or was cancelled. */
export interface GraphMarks {
  current?: string | undefined;
  visited: Iterable<string>;
  failed?: string | undefined;
  cancelled?: string | undefined;
  /** In a failed run (or one whose model calls failed), nodes that ran are drawn neutral, never green. */
  runFailed?: boolean;
  /** The run has ended (or paused): a node it never reached did not run, not "pending". */
  ended?: boolean;
  /** Where a paused run waits. */
  paused?: { node: string; position: 'before' | 'after' } | undefined;
  /** The node picked on the graph. */
  selected?: string | undefined;
  /** Pauses set for the next run, by node. */
  pauseBefore?: ReadonlySet<string>;
  pauseAfter?: ReadonlySet<string>;
}

const STATES = ['current', 'visited', 'failed', 'cancelled', 'not-run'] as const;

/** Marks the nodes of a drawn graph (classes only, no redraw); each node's title (its accessible name) says its state. */
export function highlightGraph(svg: Element, marks: GraphMarks): void {
  const runs = new Map<string, number>();
  for (const name of marks.visited) runs.set(name, (runs.get(name) ?? 0) + 1);
  svg.classList.toggle('run-failed', marks.runFailed === true);
  for (const group of svg.querySelectorAll('g.node')) {
    const name = group.getAttribute('data-node') ?? '';
    const count = runs.get(name) ?? 0;
    const terminal = group.classList.contains('terminal');
    const state =
      name === marks.failed
        ? 'failed'
        : name === marks.cancelled
          ? 'cancelled'
          : name === marks.current
            ? 'current'
            : count > 0
              ? 'visited'
              : marks.ended && !terminal
                ? 'not-run'
                : '';
    for (const mark of STATES) group.classList.toggle(mark, mark === state);
    if (state === '') group.removeAttribute('data-state');
    else group.setAttribute('data-state', state);
    const paused = marks.paused?.node === name ? marks.paused.position : undefined;
    group.classList.toggle('paused', paused !== undefined);
    group.classList.toggle('selected', marks.selected === name);
    const before = marks.pauseBefore?.has(name) === true;
    const after = marks.pauseAfter?.has(name) === true;
    group.classList.toggle('break-before', before);
    group.classList.toggle('break-after', after);
    const countText = group.querySelector('.node-count');
    if (countText) countText.textContent = paused ? `paused ${paused}` : count > 1 ? `×${count}` : '';
    const title = group.querySelector('title');
    const base = title?.textContent?.replace(/ — .*$/, '') ?? name;
    const said = [
      state === 'failed' || state === 'cancelled'
        ? state
        : state === 'not-run'
          ? 'did not run'
          : count > 0
            ? `ran ${count === 1 ? 'once' : `${count} times`}`
            : '',
      paused ? `paused ${paused} it` : '',
      before || after
        ? `the next run pauses ${[before ? 'before' : '', after ? 'after' : ''].filter(Boolean).join(' and ')} it`
        : '',
    ].filter(Boolean);
    if (title) title.textContent = `${base}${said.length > 0 ? ` — ${said.join('; ')}` : ''}`;
    // The title is the node's accessible name (no aria-label: the name must hold the text shown).
    if (!terminal) group.setAttribute('aria-pressed', String(marks.selected === name));
  }
}

function layerDepths(graph: AgentGraph): Map<string, number> {
  const known = new Set(graph.nodes.map((node) => node.name));
  const depth = new Map<string, number>([[START, 0]]);
  const queue = [START];
  while (queue.length > 0) {
    const name = queue.shift()!;
    for (const edge of graph.edges) {
      if (edge.from !== name || depth.has(edge.to) || !known.has(edge.to)) continue;
      depth.set(edge.to, depth.get(name)! + 1);
      queue.push(edge.to);
    }
  }
  let deepest = Math.max(0, ...depth.values());
  for (const node of graph.nodes) if (!depth.has(node.name)) depth.set(node.name, ++deepest);
  // __end__ always sits below everything.
  const end = graph.nodes.find((node) => node.kind === 'end');
  if (end) {
    const others = [...depth.entries()].filter(([name]) => name !== end.name).map(([, value]) => value);
    depth.set(end.name, Math.max(0, ...others) + 1);
  }
  return depth;
}

function shorten(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
