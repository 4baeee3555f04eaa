/**
 * A tiny element builder: `element('button', {class: 'x', onclick}, 'text')`. Strings become
 * text nodes (never HTML), so model output and agent text cannot inject markup.
 */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

/** Creates an HTML element with attributes (`on*` functions become listeners) and children. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  applyAttributes(node, attributes);
  append(node, children);
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes and children. */
export function svgElement(tag: string, attributes: Attributes = {}, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  applyAttributes(node, attributes);
  append(node, children);
  return node;
}

/** Replaces all children of a node. */
export function replaceChildren(node: Element, ...children: Child[]): void {
  node.replaceChildren();
  append(node, children);
}

/** Pretty JSON for display, cut at `limit` characters. */
export function formatJson(value: unknown, limit = 20_000): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

function applyAttributes(node: Element, attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
}

function append(node: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}
