/**
 * The MCP client is a lazy chunk of the library: `dist/index.js` and the chunks it loads up front
 * do not contain it; one chunk does, reached only through a dynamic import (loaded by agents with
 * `mcp.*` tools, src/reasoning/react/mcp-tool-table.ts). Needs the build (npm test builds first).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = path.resolve(import.meta.dirname, '../../dist');
const MARKER = 'notifications/initialized'; // sent by the MCP client only

/** Files reached from `file` through static imports (`import … from "./x.js"` / `export … from`). */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:^|[;\n])\s*(?:import|export)\s[^;'"]*?from\s*["'](\.[^"']+)["']/g)) staticClosure(path.resolve(path.dirname(file), match[1]!), seen);
  return seen;
}

describe.skipIf(!existsSync(path.join(DIST, 'index.js')))('MCP in the library build', () => {
  it('is one lazily imported chunk, not loaded by dist/index.js', () => {
    const upFront = [...staticClosure(path.join(DIST, 'index.js'))];
    expect(upFront.length).toBeGreaterThan(1);
    expect(upFront.filter((file) => readFileSync(file, 'utf8').includes(MARKER))).toEqual([]);
    const chunks = readdirSync(path.join(DIST, 'chunks')).filter((name) => readFileSync(path.join(DIST, 'chunks', name), 'utf8').includes(MARKER));
    expect(chunks).toHaveLength(1);
    const importers = readdirSync(path.join(DIST, 'chunks')).filter((name) => readFileSync(path.join(DIST, 'chunks', name), 'utf8').includes(`import("./${chunks[0]}")`));
    expect(importers.length).toBeGreaterThan(0);
  });
});
