/** Reads the corpus from tests/agents (Node side). */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CorpusCase } from './corpus-runner.js';

export const AGENTS_DIR = path.resolve(import.meta.dirname, '../agents');

export interface CorpusExpectation {
  status: string;
  stop_reason?: string;
  error_code?: string;
  state?: Record<string, unknown>;
  state_subset?: Record<string, unknown>;
  state_keys?: string[];
  event_types: string[];
}

export function readCorpus(): Array<CorpusCase & { expected: CorpusExpectation }> {
  return readdirSync(AGENTS_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.yaml$/, '');
      const spec = JSON.parse(readFileSync(path.join(AGENTS_DIR, `${name}.case.json`), 'utf8'));
      return {
        name,
        yaml: readFileSync(path.join(AGENTS_DIR, file), 'utf8'),
        input: spec.input,
        expected: spec.expected,
      };
    });
}
