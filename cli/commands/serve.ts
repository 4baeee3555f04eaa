/**
 * `tea-edge serve [--port 8787] [--host 127.0.0.1] [--agents <dir>] [--trace-dir <dir>]
 * [--files <dir>] [--allow-no-auth] [--shell-provider NAME=COMMAND ...]`: the worker's Hono app on
 * Node, plus the web demo; `--shell-provider` as for `run` (the host names the commands TEA's
 * `provider: shell` runs). A missing
 * agents folder is a usage error (exit 2); a port already in use says so and suggests --port
 * (exit 1); a host other machines reach with no TEA_API_TOKENS is refused (exit 2) unless
 * --allow-no-auth says the open API is meant. Agent files that do not load are printed
 * (`file:line:column CODE message`) and listed by the API as invalid; the valid ones are served.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs, stringFlag, UsageError } from '../args.js';
import type { CliIo } from '../io.js';
import { AgentError } from '../../src/host.js';
import { oneLine } from '../terminal-text.js';
import { loadErrorLines } from './load-error-lines.js';
import { shellCommands } from './run-options.js';

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv,
    new Set(['allow-no-auth', 'accept-file-race']),
    new Set(['port', 'agents', 'trace-dir', 'host', 'files']),
    new Set(['shell-provider']),
  );
  const shellProviders = shellCommands(args);
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${args.positionals[0]}' (tea-edge serve --help)`);
  const portText = stringFlag(args, 'port') ?? process.env.PORT ?? '8787';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`--port must be a port number (0-65535), got '${portText}'`);
  const agentsDir = stringFlag(args, 'agents') ?? 'examples';
  await requireDirectory(agentsDir, '--agents');
  const filesDir = stringFlag(args, 'files');
  if (filesDir !== undefined) await requireDirectory(filesDir, '--files');
  const hostname = stringFlag(args, 'host') ?? '127.0.0.1';
  const { serve } = await import('../../worker/node/node.js');
  let server;
  try {
    server = await serve({
      port,
      hostname,
      agentsDir,
      traceDir: stringFlag(args, 'trace-dir') ?? '.tea-traces',
      allowNoAuth: args.flags.get('allow-no-auth') === true,
      acceptFileRace: args.flags.get('accept-file-race') === true,
      ...(filesDir !== undefined ? { filesDir } : {}),
      ...(shellProviders.length > 0 ? { shellProviders } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      io.stderr(
        `${oneLine(`tea-edge serve: port ${port} on ${hostname} is already in use; stop the other server or choose another port with --port <n> (--port 0 picks a free one)`)}\n`,
      );
      return 1;
    }
    if (code === 'EACCES') {
      io.stderr(
        `${oneLine(`tea-edge serve: not allowed to listen on port ${port} of ${hostname}; choose a port above 1023 with --port <n>`)}\n`,
      );
      return 1;
    }
    if (AgentError.isInstance(error) && error.code === 'HOST_CONFIG') {
      // The host's configuration (TEA_* variables), not an agent file.
      io.stderr(`${oneLine(`tea-edge serve: ${error.message}`)}\n`);
      return 2;
    }
    if (AgentError.isInstance(error)) {
      io.stderr(loadErrorLines(error, agentsDir));
      return 2;
    }
    throw error;
  }
  if (server.warning !== undefined) io.stderr(`${oneLine(`tea-edge serve: ${server.warning}`)}\n`);
  if (server.invalidAgents.length > 0) {
    // Served anyway: the valid agents run, the broken files are listed (GET /agents, the studio).
    const count = server.invalidAgents.length;
    io.stderr(
      `tea-edge serve: ${count} agent file${count === 1 ? '' : 's'} in ${oneLine(agentsDir)} ${count === 1 ? 'does' : 'do'} not load and ${count === 1 ? 'is' : 'are'} not served (GET /agents lists ${count === 1 ? 'it' : 'them'} as invalid):\n`,
    );
    for (const agent of server.invalidAgents) {
      for (const problem of agent.errors) {
        const place = [path.join(agentsDir, problem.file ?? agent.file), problem.line, problem.column]
          .filter((part) => part !== undefined)
          .join(':');
        io.stderr(`${oneLine(`${place} ${problem.code} ${problem.message}`)}\n`);
      }
    }
  }
  io.stderr(`tea-edge serving on ${server.url} (the studio at /, the API at /agents)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}

async function requireDirectory(directory: string, flag: string): Promise<void> {
  const found = await stat(directory).catch(() => undefined);
  if (found === undefined) throw new UsageError(`${flag} ${directory}: no such folder`);
  if (!found.isDirectory()) throw new UsageError(`${flag} ${directory}: not a folder`);
}
