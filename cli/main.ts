/**
 * The tea-edge command line (Node only); `tea-edge --help` and `tea-edge <command> --help` print
 * the usage (cli/usage.ts). Exit codes: 0 completed · 1 run failed · 2 invalid agent or usage ·
 * 3 interrupted · 130 cancelled with Ctrl-C. See docs/architecture.md (the CLI contract).
 */
import { formatAgentError, toAgentError, VERSION } from '../src/host.js';
import { UsageError, wantsHelp } from './args.js';
import { benchCommand } from './commands/bench.js';
import { probeCommand } from './commands/probe.js';
import { resumeCommand, runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { validateCommand } from './commands/validate.js';
import { processIo, type CliIo } from './io.js';
import { oneLine } from './terminal-text.js';
import { COMMAND_USAGE, USAGE } from './usage.js';

const COMMANDS: Readonly<Record<string, (argv: string[], io: CliIo) => Promise<number>>> = {
  run: runCommand,
  resume: resumeCommand,
  validate: validateCommand,
  serve: serveCommand,
  probe: probeCommand,
  bench: benchCommand,
};

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr(USAGE);
    return 2;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    const topic = command === 'help' ? rest[0] : undefined;
    io.stdout(topic !== undefined && COMMAND_USAGE[topic] !== undefined ? COMMAND_USAGE[topic] : USAGE);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    io.stdout(`tea-edge ${VERSION}\n`);
    return 0;
  }
  const handler = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (handler === undefined) {
    io.stderr(`unknown command '${oneLine(command, 100)}'\n\n${USAGE}`);
    return 2;
  }
  if (wantsHelp(rest)) {
    io.stdout(COMMAND_USAGE[command]!);
    return 0;
  }
  try {
    return await handler(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${oneLine(`tea-edge ${command}: ${error.message}`)}\n`);
      return 2;
    }
    const agentError = toAgentError(error, 'INTERNAL');
    io.stderr(`${oneLine(`${agentError.code} ${formatAgentError(agentError)}`)}\n`);
    return 1;
  }
}
