/** Runs the built `tea-edge` bin in a child process, for CLI contract tests. */
import { execFile } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/tea-edge.js');

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** `tea-edge <args>` from the repository root; `env` is added to this process's environment. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
