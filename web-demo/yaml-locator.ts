/**
 * Finds where a path (`['nodes', 0, 'uses']`) sits in an agent's YAML text, so a problem the
 * loader names only by path can still be marked at its line and column. Parses on first use.
 */
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import type { PathLocator } from './load-problems.js';

/** A locator over `source`; a path that is not there falls back to its nearest existing parent. */
export function yamlPathLocator(source: string): PathLocator {
  let parsed: { document: Document; lines: LineCounter } | undefined;
  return (path) => {
    if (parsed === undefined) {
      const lines = new LineCounter();
      parsed = {
        document: parseDocument(source, { lineCounter: lines, uniqueKeys: false, prettyErrors: false }),
        lines,
      };
    }
    for (let length = path.length; length >= 0; length--) {
      const node = length === 0 ? parsed.document.contents : parsed.document.getIn(path.slice(0, length), true);
      const offset = isNode(node) ? node.range?.[0] : undefined;
      if (offset === undefined) continue;
      const position = parsed.lines.linePos(offset);
      return { line: position.line, column: position.col };
    }
    return undefined;
  };
}
