/**
 * Links into the project's documents hold: every `docs/<file>.md#<anchor>` written anywhere in the
 * repository (code comments, tests, docs, README), and every relative Markdown link with an anchor
 * inside docs/ and README.md, names a heading that exists, with the anchor GitHub computes for it.
 * The normative text lives in docs/spec.md, so no citation of the old outside "SPEC §x.y" remains.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCANNED = [
  'src',
  'cli',
  'worker',
  'adapters',
  'web-demo',
  'tests',
  'bench',
  'docs',
  'examples',
  'build',
  'README.md',
];
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'vendor', 'generated', '.git']);
const TEXT_FILE = /\.(ts|mts|mjs|js|md|yaml|yml|json|html|css|eta)$/;

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
export function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings, with GitHub's `-1`, `-2` suffixes for repeats. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const base = githubAnchor(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function files(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return TEXT_FILE.test(full) ? [full] : [];
  return readdirSync(full).flatMap((name) => (SKIPPED_DIRECTORIES.has(name) ? [] : files(path.join(entry, name))));
}

interface DocLink {
  where: string;
  document: string;
  anchor: string;
}

/** `docs/x.md#a` anywhere (from the repository root); `[text](x.md#a)` in Markdown (from the file). */
function linksIn(file: string, text: string): DocLink[] {
  const where = path.relative(ROOT, file);
  const found: DocLink[] = [];
  for (const match of text.matchAll(/(?<![\w./-])(docs\/[\w./-]+\.md)#([\p{L}\p{N}_-]+)/gu)) {
    found.push({ where, document: path.join(ROOT, match[1]!), anchor: match[2]! });
  }
  if (file.endsWith('.md')) {
    for (const match of text.matchAll(/\]\(([^)\s#]*\.md)?#([\p{L}\p{N}_-]+)\)/gu)) {
      const target = match[1] === undefined ? file : path.resolve(path.dirname(file), match[1]);
      if (match[1]?.startsWith('docs/') && path.dirname(file) === ROOT) continue; // counted above
      found.push({ where, document: target, anchor: match[2]! });
    }
  }
  return found;
}

describe('links into docs/', () => {
  // This file spells out the patterns it looks for, so it is the one file not scanned.
  const sources = SCANNED.flatMap(files).filter((file) => file !== path.join(ROOT, 'tests/build/doc-links.test.ts'));
  const texts = new Map(sources.map((file) => [file, readFileSync(file, 'utf8')]));
  const links = [...texts].flatMap(([file, text]) => linksIn(file, text));

  it('computes anchors the way GitHub does', () => {
    expect(githubAnchor('1.4 Navigation')).toBe('14-navigation');
    expect(githubAnchor('4.2 `llm.call`, `llm.stream`')).toBe('42-llmcall-llmstream');
    expect(githubAnchor('1.5 Parallel fan-out / fan-in')).toBe('15-parallel-fan-out--fan-in');
    expect(githubAnchor('6.4 `reason.self_correct`')).toBe('64-reasonself_correct');
    expect([...headingAnchors('# A\n## A\n```\n# not a heading\n```\n### B: c (d)\n')]).toEqual(['a', 'a-1', 'b-c-d']);
  });

  it('the repository links into docs/spec.md (the citations moved in)', () => {
    const spec = links.filter((link) => link.document === path.join(ROOT, 'docs/spec.md'));
    expect(spec.length).toBeGreaterThan(50);
  });

  it('every link names a document and a heading that exist', () => {
    const anchorsOf = new Map<string, Set<string>>();
    const broken = links.filter((link) => {
      if (!existsSync(link.document)) return true;
      if (!anchorsOf.has(link.document))
        anchorsOf.set(link.document, headingAnchors(readFileSync(link.document, 'utf8')));
      return !anchorsOf.get(link.document)!.has(link.anchor);
    });
    expect(broken.map((link) => `${link.where}: ${path.relative(ROOT, link.document)}#${link.anchor}`)).toEqual([]);
  });

  it('no citation of the outside "SPEC §" document remains', () => {
    const citing = [...texts].filter(([, text]) => /SPEC\s*§/.test(text)).map(([file]) => path.relative(ROOT, file));
    expect(citing).toEqual([]);
  });
});
