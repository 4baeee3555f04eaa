/** What a command writes to; the real process streams, or buffers in tests. */
import { redactSecrets } from '../src/host.js';
import { terminalSafe } from './terminal-text.js';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process streams, with every control character but line breaks escaped (see terminal-text.ts). */
export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(terminalSafe(text)),
  stderr: (text) => void process.stderr.write(terminalSafe(text)),
};

/**
 * The same streams with the host's secrets (the model API key) replaced wherever they appear: a
 * model or an agent can copy the key into state or an error, and the CLI prints both.
 */
export function redactingIo(io: CliIo, secrets: readonly (string | undefined)[]): CliIo {
  const values = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
  if (values.length === 0) return io;
  return {
    stdout: (text) => io.stdout(redactSecrets(text, values)),
    stderr: (text) => io.stderr(redactSecrets(text, values)),
  };
}
