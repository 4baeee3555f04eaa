/**
 * The shape of an agent as a graph, for drawing: its nodes and the edges between them, following
 * the navigation rules of docs/spec.md#14-navigation (`goto` > legacy `edges` > list order). Works on the parsed
 * YAML object, so it can draw an agent that does not load yet.
 */

export interface GraphNode {
  name: string;
  /** What the node does: an action name, `lua`, `steps`, `pass`, `while_loop` or `dynamic_parallel`. */
  kind: string;
  /** A `type: while_loop` node: the names of its body steps, run again while its condition holds. */
  loopBody?: string[];
  /** A `type: dynamic_parallel` node: the items expression it fans out over (one branch per item). */
  fansOutOver?: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** A condition or `parallel`, when the edge has one (a `condition:` edge: shortened, with its `when`). */
  label?: string;
  /** The whole condition when the label shortens it (drawn as the edge's tooltip). */
  detail?: string;
}

export interface AgentGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

import { END, START } from '../src/spec/agent-spec.js';
import { isPlainObject } from '../src/util/plain-object.js';

export { END, START };

/** Builds the graph of a parsed agent file; unknown shapes give an empty graph, never a throw. */
export function agentGraph(spec: unknown): AgentGraph {
  const root = isPlainObject(spec) ? spec : {};
  const rawNodes = Array.isArray(root.nodes) ? root.nodes.filter(isPlainObject) : [];
  const names = rawNodes.map((node, index) => (typeof node.name === 'string' ? node.name : `node ${index + 1}`));
  const legacyEdges = Array.isArray(root.edges) ? root.edges.filter(isPlainObject) : [];
  const nodes: GraphNode[] = [
    { name: START, kind: 'start' },
    ...rawNodes.map((node, index) => describeNode(names[index]!, node)),
    { name: END, kind: 'end' },
  ];
  const edges: GraphEdge[] = [];
  const startEdges = legacyEdges.filter((edge) => edge.from === START);
  if (startEdges.length > 0) for (const edge of startEdges) pushLegacy(edges, edge);
  else edges.push({ from: START, to: names[0] ?? END });

  rawNodes.forEach((node, index) => {
    const name = names[index]!;
    // A dynamic_parallel node also leads to its fan_in node (the engine checks it as reachable).
    if (node.type === 'dynamic_parallel' && typeof node.fan_in === 'string')
      edges.push({ from: name, to: node.fan_in, label: 'fan in' });
    const goto = node.goto;
    if (typeof goto === 'string') {
      edges.push({ from: name, to: goto });
      return;
    }
    if (Array.isArray(goto)) {
      for (const rule of goto.filter(isPlainObject)) {
        if (typeof rule.to !== 'string') continue;
        const condition = typeof rule.if === 'string' ? rule.if : undefined;
        edges.push(
          condition === undefined ? { from: name, to: rule.to } : { from: name, to: rule.to, label: condition },
        );
      }
      return;
    }
    const outgoing = legacyEdges.filter((edge) => edge.from === name);
    if (outgoing.length > 0) {
      for (const edge of outgoing) pushLegacy(edges, edge);
      return;
    }
    edges.push({ from: name, to: names[index + 1] ?? END });
  });
  return { nodes, edges: withoutShadowedEdges(edges) };
}

function pushLegacy(edges: GraphEdge[], edge: Record<string, unknown>): void {
  const from = String(edge.from);
  const targets = Array.isArray(edge.to) ? edge.to.map(String) : [String(edge.to)];
  const parallel = edge.parallel === true || edge.type === 'parallel';
  const tested = conditionLabel(edge);
  const condition = tested?.label ?? (typeof edge.when === 'string' ? edge.when : parallel ? 'parallel' : undefined);
  for (const to of targets) {
    if (condition === undefined) edges.push({ from, to });
    else
      edges.push(
        tested?.detail === undefined
          ? { from, to, label: condition }
          : { from, to, label: condition, detail: tested.detail },
      );
  }
  if (parallel && typeof edge.fan_in === 'string') {
    for (const to of targets) edges.push({ from: to, to: edge.fan_in, label: 'fan in' });
  }
}

/** The longest condition text kept in a label; the rest goes to the edge's tooltip. */
const CONDITION_LIMIT = 24;

/**
 * The label of a TEA `condition:` edge: the condition (a string, a boolean or `{type: expression,
 * value}`), shortened, then the `when` result that takes the edge (default true), as `cond ⇒ when`.
 */
function conditionLabel(edge: Record<string, unknown>): { label: string; detail?: string } | undefined {
  const raw = isPlainObject(edge.condition) ? edge.condition.value : edge.condition;
  if (typeof raw !== 'string' && typeof raw !== 'boolean') return undefined;
  const when = typeof edge.when === 'boolean' ? edge.when : true;
  const whole = String(raw).replace(/\s+/g, ' ').trim();
  // `state.` is on nearly every condition; dropping it leaves room for the part that differs.
  const compact = whole.replace(/\bstate\./g, '');
  const short = compact.length > CONDITION_LIMIT ? `${compact.slice(0, CONDITION_LIMIT - 1)}…` : compact;
  const label = `${short} ⇒ ${when}`;
  return short === whole ? { label } : { label, detail: `${whole} ⇒ ${when}` };
}

/** Drops a plain edge that a `fan in` edge already draws (a dynamic_parallel whose fan_in is also its next node). */
function withoutShadowedEdges(edges: GraphEdge[]): GraphEdge[] {
  return edges.filter(
    (edge) =>
      edge.label !== undefined ||
      !edges.some((other) => other.label === 'fan in' && other.from === edge.from && other.to === edge.to),
  );
}

function describeNode(name: string, node: Record<string, unknown>): GraphNode {
  const kind = nodeKind(node);
  if (kind === 'while_loop') {
    const body = Array.isArray(node.body) ? node.body.filter(isPlainObject) : [];
    return {
      name,
      kind,
      loopBody: body.map((step, index) => (typeof step.name === 'string' ? step.name : `step ${index + 1}`)),
    };
  }
  if (kind === 'dynamic_parallel')
    return { name, kind, fansOutOver: typeof node.items === 'string' ? node.items : 'items' };
  return { name, kind };
}

function nodeKind(node: Record<string, unknown>): string {
  if (node.type === 'while_loop' || node.type === 'dynamic_parallel') return node.type;
  const action = node.uses ?? node.action;
  if (typeof action === 'string') return action;
  if (typeof node.run === 'string') return 'lua';
  if (Array.isArray(node.steps)) return 'steps';
  return 'pass';
}
