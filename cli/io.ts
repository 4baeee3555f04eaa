/** What a command writes to; the real process streams, or buffers in tests. */
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
