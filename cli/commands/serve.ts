/** `tea-edge serve [--port 8787] [--agents <dir>] [--trace-dir <dir>]`: the worker's Hono app on Node, plus the web demo. */
import { parseArgs, stringFlag, UsageError } from '../args.js';
import type { CliIo } from '../io.js';

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(), new Set(['port', 'agents', 'trace-dir', 'host']));
  const port = Number(stringFlag(args, 'port') ?? process.env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be a port number');
  const { serve } = await import('../../worker/node.js');
  const server = await serve({
    port,
    hostname: stringFlag(args, 'host') ?? '127.0.0.1',
    agentsDir: stringFlag(args, 'agents') ?? 'examples',
    traceDir: stringFlag(args, 'trace-dir') ?? '.tea-traces',
  });
  io.stderr(`tea-edge serving on ${server.url} (web demo at /, API at /agents)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
