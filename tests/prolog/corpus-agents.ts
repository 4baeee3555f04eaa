/** The Prolog corpus: tests/prolog/corpus/*.yaml and the examples/prolog-*.yaml agents, read in Node. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CorpusAgent } from './prolog-corpus.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export function readPrologCorpus(): CorpusAgent[] {
  const from = (dir: string, filter: (name: string) => boolean) =>
    readdirSync(path.join(ROOT, dir))
      .filter((name) => name.endsWith('.yaml') && filter(name))
      .sort()
      .map((name) => ({ name: name.replace(/\.yaml$/, ''), yaml: readFileSync(path.join(ROOT, dir, name), 'utf8') }));
  return [...from('examples', (name) => name.startsWith('prolog-')), ...from('tests/prolog/corpus', () => true)];
}
