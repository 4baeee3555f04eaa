/**
 * How `run` and `resume` report a run: stdout gets the final state (or NDJSON events with
 * --stream, or the interrupt as JSON); stderr gets one line for a failed or cancelled run. Ctrl-C
 * aborts the run's signal and the engine records the run as `cancelled`; a second Ctrl-C quits.
 *
 *   exit 0 completed · 1 failed · 3 interrupted (waiting for resume) · 130 cancelled with Ctrl-C
 */
import { describeLocation, type AgentRun, type RunResult } from '../../src/host.js';
import type { CliIo } from '../io.js';
import { MAX_LINE, oneLine } from '../terminal-text.js';

export const EXIT_CANCELLED = 130;

export interface ReportOptions {
  stream: boolean;
  /** Where the trace is kept, when it is (the run id is then printed on stderr). */
  traceDir?: string;
}

export async function report(run: AgentRun, options: ReportOptions, io: CliIo): Promise<number> {
  const stopOnSigint = onSigint(run);
  try {
    if (options.stream) {
      for await (const event of run) io.stdout(JSON.stringify(event) + '\n');
    }
    return finish(await run.result, options, io);
  } finally {
    stopOnSigint();
  }
}

/** Ctrl-C cancels the run (the engine writes the record); a second one exits at once. */
function onSigint(run: AgentRun): () => void {
  let interrupted = false;
  const handler = (): void => {
    if (interrupted) process.exit(EXIT_CANCELLED);
    interrupted = true;
    run.cancel('cancelled with Ctrl-C (SIGINT)');
  };
  process.on('SIGINT', handler);
  return () => void process.off('SIGINT', handler);
}

function finish(result: RunResult, options: ReportOptions, io: CliIo): number {
  if (result.status === 'failed' || result.status === 'cancelled') {
    io.stderr(errorLine(result) + '\n');
    return result.status === 'cancelled' ? EXIT_CANCELLED : 1;
  }
  if (options.traceDir !== undefined)
    io.stderr(`${oneLine(`run ${result.run_id} (${result.status}), trace in ${options.traceDir}`)}\n`);
  if (result.status === 'completed') {
    if (!options.stream) io.stdout(JSON.stringify(result.state, null, 2) + '\n');
    return 0;
  }
  const interrupt = result.interrupt;
  const waitingFor =
    interrupt?.kind === 'tool_confirmation'
      ? {
          kind: 'tool_confirmation',
          node: interrupt.node,
          tool: interrupt.tool,
          arguments: interrupt.arguments,
          call_id: interrupt.call_id,
          ...(interrupt.description !== undefined ? { description: interrupt.description } : {}),
        }
      : {
          kind: 'interrupt',
          node: interrupt?.node,
          position: interrupt?.kind === 'interrupt' ? interrupt.position : undefined,
        };
  if (!options.stream) {
    io.stdout(
      JSON.stringify(
        {
          run_id: result.run_id,
          status: result.status,
          stop_reason: result.stop_reason,
          waiting_for: waitingFor,
          checkpoint_id: interrupt?.checkpoint_id,
          state: result.state,
        },
        null,
        2,
      ) + '\n',
    );
  }
  return 3;
}

/**
 * The one stderr line of a run that did not complete:
 * `CODE node=<node> field=<field> <message> (run <id>, stop reason <reason>)`, control characters
 * escaped and capped (terminal-text.ts); node= and field= appear when known, and the message is
 * preceded by `file:line:column: ` when the error has a place in the agent file (a Lua line).
 */
export function errorLine(result: RunResult): string {
  const error = result.error;
  const parts: string[] = [error?.code ?? 'INTERNAL'];
  if (error?.node !== undefined) parts.push(`node=${error.node}`);
  if (error?.field !== undefined) parts.push(`field=${error.field}`);
  const tail = oneLine(` (run ${result.run_id}, stop reason ${result.stop_reason})`, 200);
  const place =
    error === undefined ? '' : describeLocation({ file: error.file, line: error.line, column: error.column });
  const message =
    error === undefined
      ? `the run ended ${result.status}`
      : place === ''
        ? error.message
        : `${place}: ${error.message}`;
  return oneLine(`${parts.join(' ')} ${message}`, MAX_LINE - tail.length) + tail;
}
