/**
 * The MCP client is a lazy chunk of the library: `dist/index.js` and the chunks it loads up front
 * do not contain it; one chunk does, reached only through a dynamic import (loaded by agents with
 * `mcp.*` tools, src/reasoning/react/mcp-tool-table.ts). Needs the build (npm test builds first).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = path.resolve(import.meta.dirname, '../../dist');
const MARKER = 'notifications/initialized'; // sent by the MCP client only

/** Files reached from `file` through static imports (`import … from "./x.js"` / `export … from`), and dynamic ones too when asked. */
function closure(file: string, dynamic: boolean, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const patterns = [
    /(?:^|[;\n])\s*(?:import|export)\s[^;'"]*?from\s*["'](\.[^"']+)["']/g,
    ...(dynamic ? [/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g] : []),
  ];
  for (const pattern of patterns)
    for (const match of text.matchAll(pattern)) closure(path.resolve(path.dirname(file), match[1]!), dynamic, seen);
  return seen;
}

const hasClient = (file: string) => readFileSync(file, 'utf8').includes(MARKER);

describe.skipIf(!existsSync(path.join(DIST, 'index.js')))('MCP in the library build', () => {
  it('is one lazily imported chunk, not loaded by dist/index.js', () => {
    const upFront = [...closure(path.join(DIST, 'index.js'), false)];
    expect(upFront.length).toBeGreaterThan(1);
    expect(upFront.filter(hasClient)).toEqual([]);
    // Stale chunks of earlier builds may lie in dist/chunks: only what index.js can reach counts.
    const lazy = [...closure(path.join(DIST, 'index.js'), true)].filter(hasClient);
    expect(lazy).toHaveLength(1);
    // Its chunk is named by a hash: the library build makes each module an entry (build/targets/20-library.mjs).
    expect(path.relative(DIST, lazy[0]!)).toMatch(/^chunks\//);
  });
});
