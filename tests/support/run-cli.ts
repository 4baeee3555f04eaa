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
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, cwd: ROOT },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Starts `tea-edge <args>` and returns the child (to signal it); `outcome` settles when it exits. */
export function startCli(
  args: string[],
  env: Record<string, string> = {},
): { child: import('node:child_process').ChildProcess; outcome: Promise<CliOutcome> } {
  const child = execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.on('data', (chunk: string) => (stderr += chunk));
  const outcome = new Promise<CliOutcome>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal !== null ? 128 : 1), stdout, stderr })),
  );
  return { child, outcome };
}

/**
 * Starts `tea-edge serve <args>` (give `--port 0`) and resolves with its base URL (no trailing
 * slash) once it says it is serving; rejects if it exits first.
 */
export async function startServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; child: import('node:child_process').ChildProcess; outcome: Promise<CliOutcome> }> {
  const { child, outcome } = startCli(['serve', ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: string) => {
      text += chunk;
      const found = /serving on (http:\/\/\S+)/.exec(text)?.[1];
      if (found !== undefined) resolve(found.replace(/\/$/, ''));
    });
    void outcome.then((result) => reject(new Error(`serve exited ${result.code}: ${result.stderr}`)));
  });
  return { url, child, outcome };
}
