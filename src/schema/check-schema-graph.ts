/**
 * checkSchemaGraph: the `$ref` checks made when a schema is compiled, over the lookup table that
 * @cfworker/json-schema's `dereference` builds (URI → subschema).
 *
 * - Every `$ref` must resolve inside the table: there is no network or file access, so a schema
 *   that is neither in the document nor registered is refused now rather than failing at the
 *   first validation.
 * - "In place" edges (`$ref`, `$recursiveRef`, `allOf`, `anyOf`, `oneOf`, `not`, `if`, `then`,
 *   `else`, `dependentSchemas`, schema-valued `dependencies`) apply a subschema to the same
 *   instance value. A cycle of them never reaches a smaller part of the instance, so validation
 *   would recurse forever: refused. Recursion through `properties`, `items` and the like is fine.
 * - The number of subschemas one subschema applies in place, counted with repetition, is capped:
 *   shared `$ref`s nested in `allOf`/`anyOf` otherwise double the work at every level.
 * - The longest chain of in-place applications (`$ref` → `$ref` → …) is capped: each link is a
 *   nested call when validating, so a 4,000-link chain would overflow the stack at run time.
 */
import { isPlainObject } from '../util/plain-object.js';

export type SchemaLookup = Record<string, unknown>;

export type GraphProblem =
  | { kind: 'unresolved'; reference: string; at: string }
  | { kind: 'cycle'; at: string }
  | { kind: 'expansion'; at: string }
  | { kind: 'chain'; at: string; length: number };

export interface GraphLimits {
  /** Most subschemas applied in place to one value, counted with repetition. */
  maxExpansion: number;
  /** Longest chain of in-place applications. */
  maxChain: number;
}

const LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf'];
const SINGLE_KEYWORDS = ['not', 'if', 'then', 'else'];

type SchemaNode = Record<string, unknown>;

/** The distinct subschema objects of a lookup table. */
export function schemaNodes(lookup: SchemaLookup): SchemaNode[] {
  const nodes = new Set<SchemaNode>();
  for (const value of Object.values(lookup)) {
    if (isPlainObject(value)) nodes.add(value);
  }
  return [...nodes];
}

/** The absolute URI a node's `$ref` points to (as resolved by dereference), if it has one. */
export function referenceOf(node: SchemaNode): string | undefined {
  if (typeof node.$ref !== 'string') return undefined;
  return typeof node.__absolute_ref__ === 'string' ? node.__absolute_ref__ : node.$ref;
}

/** Finds the first unresolved reference, in-place cycle, over-expansion or over-long chain. */
export function checkSchemaGraph(
  lookup: SchemaLookup,
  nodes: SchemaNode[],
  limits: GraphLimits,
): GraphProblem | undefined {
  for (const node of nodes) {
    const reference = referenceOf(node);
    if (reference !== undefined && lookup[reference] === undefined) {
      return { kind: 'unresolved', reference: node.$ref as string, at: locationOf(node) };
    }
  }
  const weight = new Map<SchemaNode, number>();
  const chain = new Map<SchemaNode, number>();
  const onPath = new Set<SchemaNode>();
  for (const root of nodes) {
    if (weight.has(root)) continue;
    // Iterative depth-first walk: reference chains can be longer than the call stack.
    const stack: Array<{ node: SchemaNode; children: SchemaNode[]; next: number }> = [];
    const enter = (node: SchemaNode): void => {
      onPath.add(node);
      stack.push({ node, children: inPlaceChildren(node, lookup), next: 0 });
    };
    enter(root);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.children.length) {
        const child = frame.children[frame.next]!;
        frame.next += 1;
        if (onPath.has(child)) return { kind: 'cycle', at: locationOf(child) };
        if (!weight.has(child)) enter(child);
        continue;
      }
      let total = 1;
      let longest = 0;
      for (const child of frame.children) {
        total += weight.get(child) ?? 0;
        longest = Math.max(longest, chain.get(child) ?? 0);
      }
      if (total > limits.maxExpansion) return { kind: 'expansion', at: locationOf(frame.node) };
      if (longest + 1 > limits.maxChain) return { kind: 'chain', at: locationOf(frame.node), length: longest + 1 };
      weight.set(frame.node, total);
      chain.set(frame.node, longest + 1);
      onPath.delete(frame.node);
      stack.pop();
    }
  }
  return undefined;
}

function inPlaceChildren(node: SchemaNode, lookup: SchemaLookup): SchemaNode[] {
  const children: unknown[] = [];
  const reference = referenceOf(node);
  if (reference !== undefined) children.push(lookup[reference]);
  if (node.$recursiveRef !== undefined && typeof node.__absolute_recursive_ref__ === 'string') {
    children.push(lookup[node.__absolute_recursive_ref__]);
  }
  for (const keyword of LIST_KEYWORDS) {
    if (Array.isArray(node[keyword])) children.push(...(node[keyword] as unknown[]));
  }
  for (const keyword of SINGLE_KEYWORDS) children.push(node[keyword]);
  for (const keyword of ['dependentSchemas', 'dependencies']) {
    const map = node[keyword];
    if (typeof map === 'object' && map !== null && !Array.isArray(map)) children.push(...Object.values(map));
  }
  return children.filter(
    (child): child is SchemaNode => typeof child === 'object' && child !== null && !Array.isArray(child),
  );
}

/** The subschema's place, as dereference recorded it (`<uri>#<pointer>`). */
export function locationOf(node: SchemaNode): string {
  return typeof node.__absolute_uri__ === 'string' ? node.__absolute_uri__ : '#';
}
