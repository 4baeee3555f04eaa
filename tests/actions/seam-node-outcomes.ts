/** Node's side of the seam scenarios: the example agents they run, and Node's outcomes (a rooted folder). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRootedFileStore } from '../../adapters/fs/rooted-file-store.js';
import { runSeamScenarios, type ScenarioOutcome } from './seam-scenarios.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The example agents the scenarios run, by file name. */
export function exampleAgents(): Record<string, string> {
  const names = [
    'tea-agent-files.yaml',
    'tea-agent-files-triage.yaml',
    'tea-agent-files-check.yaml',
    'tea-file-notes.yaml',
  ];
  return Object.fromEntries(names.map((name) => [name, readFileSync(path.join(ROOT, 'examples', name), 'utf8')]));
}

/** The scenarios on a fresh Node folder. */
export async function nodeOutcomes(): Promise<ScenarioOutcome[]> {
  const folder = mkdtempSync(path.join(tmpdir(), 'tea-seams-'));
  try {
    return await runSeamScenarios(createRootedFileStore(folder), exampleAgents());
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
