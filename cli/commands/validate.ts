/** `tea-edge validate <agent.yaml>`: exit 0 "ok" (warnings on stderr), or 2 with file:line:column CODE message. */
import { toAgentError } from '../../src/errors/agent-error.js';
import { UsageError } from '../args.js';
import { formatLoadError, loadAgentFile } from '../agent-file.js';
import type { CliIo } from '../io.js';

export async function validateCommand(argv: string[], io: CliIo): Promise<number> {
  const files = argv.filter((argument) => !argument.startsWith('--'));
  if (files.length === 0) throw new UsageError('usage: tea-edge validate <agent.yaml> [more.yaml ...]');
  let failed = false;
  for (const file of files) {
    try {
      const { agent } = await loadAgentFile(file);
      for (const warning of agent.warnings) io.stderr(`${file}: warning: ${warning}\n`);
      io.stdout(files.length > 1 ? `${file}: ok\n` : 'ok\n');
    } catch (error) {
      failed = true;
      io.stderr(formatLoadError(toAgentError(error, 'INVALID_AGENT'), file) + '\n');
    }
  }
  return failed ? 2 : 0;
}
