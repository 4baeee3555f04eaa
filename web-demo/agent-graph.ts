/**
 * The shape of an agent as a graph, for drawing: its nodes and the edges between them, following
 * the navigation rules of docs/spec.md#14-navigation (`goto` > legacy `edges` > list order). Works on the parsed
 * YAML object, so it can draw an agent that does not load yet.
 */

export interface GraphNode {
  name: string;
  /** What the node does: an action name, `lua`, `steps` or `pass`. */
  kind: string;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** A condition or `parallel`, when the edge has one. */
  label?: string;
}

export interface AgentGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export const START = '__start__';
export const END = '__end__';

/** Builds the graph of a parsed agent file; unknown shapes give an empty graph, never a throw. */
export function agentGraph(spec: unknown): AgentGraph {
  const root = isRecord(spec) ? spec : {};
  const rawNodes = Array.isArray(root.nodes) ? root.nodes.filter(isRecord) : [];
  const names = rawNodes.map((node, index) => (typeof node.name === 'string' ? node.name : `node ${index + 1}`));
  const legacyEdges = Array.isArray(root.edges) ? root.edges.filter(isRecord) : [];
  const nodes: GraphNode[] = [
    { name: START, kind: 'start' },
    ...rawNodes.map((node, index) => ({ name: names[index]!, kind: nodeKind(node) })),
    { name: END, kind: 'end' },
  ];
  const edges: GraphEdge[] = [];
  const startEdges = legacyEdges.filter((edge) => edge.from === START);
  if (startEdges.length > 0) for (const edge of startEdges) pushLegacy(edges, edge);
  else edges.push({ from: START, to: names[0] ?? END });

  rawNodes.forEach((node, index) => {
    const name = names[index]!;
    const goto = node.goto;
    if (typeof goto === 'string') {
      edges.push({ from: name, to: goto });
      return;
    }
    if (Array.isArray(goto)) {
      for (const rule of goto.filter(isRecord)) {
        if (typeof rule.to !== 'string') continue;
        const condition = typeof rule.if === 'string' ? rule.if : undefined;
        edges.push(condition === undefined ? { from: name, to: rule.to } : { from: name, to: rule.to, label: condition });
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
  return { nodes, edges };
}

function pushLegacy(edges: GraphEdge[], edge: Record<string, unknown>): void {
  const from = String(edge.from);
  const targets = Array.isArray(edge.to) ? edge.to.map(String) : [String(edge.to)];
  const parallel = edge.parallel === true || edge.type === 'parallel';
  const condition = typeof edge.when === 'string' ? edge.when : parallel ? 'parallel' : undefined;
  for (const to of targets) edges.push(condition === undefined ? { from, to } : { from, to, label: condition });
  if (parallel && typeof edge.fan_in === 'string') {
    for (const to of targets) edges.push({ from: to, to: edge.fan_in, label: 'fan in' });
  }
}

function nodeKind(node: Record<string, unknown>): string {
  const action = node.uses ?? node.action;
  if (typeof action === 'string') return action;
  if (typeof node.run === 'string') return 'lua';
  if (Array.isArray(node.steps)) return 'steps';
  return 'pass';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
