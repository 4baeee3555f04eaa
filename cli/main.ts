/**
 * The tea-edge command line (Node only).
 *
 *   tea-edge run <agent.yaml> [--input <json> | --input-file <path>] [--stream] [--trace-dir <dir>]
 *            [--llm-base-url <url>] [--llm-model <name>] [--llm-api-key <key>] [--record] [--replay <dir>/<run-id>]
 *   tea-edge resume <run-id> --trace-dir <dir> [--approve | --deny] [--state-update <json>]
 *   tea-edge validate <agent.yaml>
 *   tea-edge serve [--port 8787] [--agents <dir>] [--trace-dir <dir>]
 *   tea-edge probe --llm-base-url <url> [--llm-model <name>] [--llm-api-key <key>]
 *   tea-edge bench [--json]
 */
import { toAgentError } from '../src/errors/agent-error.js';
import { UsageError } from './args.js';
import { benchCommand } from './commands/bench.js';
import { probeCommand } from './commands/probe.js';
import { resumeCommand, runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { validateCommand } from './commands/validate.js';
import { processIo, type CliIo } from './io.js';

const USAGE = `tea-edge — run YAML LLM agents (The Edge Agent format)

  tea-edge run <agent.yaml> [--input <json> | --input-file <path>] [--stream] [--trace-dir <dir>]
           [--llm-base-url <url>] [--llm-model <name>] [--llm-api-key <key>] [--record] [--replay <dir>/<run-id>]
  tea-edge resume <run-id> --trace-dir <dir> [--approve | --deny] [--state-update <json>]
  tea-edge validate <agent.yaml>
  tea-edge serve [--port 8787] [--agents <dir>] [--trace-dir <dir>]
  tea-edge probe --llm-base-url <url> [--llm-model <name>] [--llm-api-key <key>]
  tea-edge bench [--json]

Exit codes: 0 completed · 1 run failed · 2 invalid agent or usage · 3 interrupted.
Environment: TEA_LLM_BASE_URL, TEA_LLM_MODEL, TEA_LLM_API_KEY override every model endpoint.
`;

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'resume':
        return await resumeCommand(rest, io);
      case 'validate':
        return await validateCommand(rest, io);
      case 'serve':
        return await serveCommand(rest, io);
      case 'probe':
        return await probeCommand(rest, io);
      case 'bench':
        return await benchCommand(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      case '--version':
        io.stdout('tea-edge 0.1.0\n');
        return 0;
      default:
        io.stderr(`unknown command '${command}'\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\n`);
      return 2;
    }
    const agentError = toAgentError(error, 'INTERNAL');
    io.stderr(`${agentError.code} ${agentError.message}\n`);
    return 1;
  }
}
