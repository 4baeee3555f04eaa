/**
 * `tea-edge probe --llm-base-url <url> [--llm-model m] [--llm-api-key k]`: asks an
 * OpenAI-compatible endpoint what it can do and prints a table and advice. The API key (flag or
 * TEA_LLM_API_KEY) is sent, never printed. Exit 0 when the endpoint answered, 1 when it could not
 * be reached at all, 2 for usage errors.
 */
import { parseArgs, stringFlag, UsageError } from '../args.js';
import type { CliIo } from '../io.js';
import { probeEndpoint, type ProbeOptions, type ProbeReport } from '../../src/host-probe.js';
import { redactSecrets } from '../../src/host.js';

const VALUE_FLAGS = new Set(['llm-base-url', 'llm-model', 'llm-api-key', 'timeout']);
const BOOLEAN_FLAGS = new Set(['json']);

export async function probeCommand(
  args: string[],
  io: CliIo,
  probe: (options: ProbeOptions) => Promise<ProbeReport> = probeEndpoint,
): Promise<number> {
  const parsed = parseArgs(args, BOOLEAN_FLAGS, VALUE_FLAGS);
  const apiBase = stringFlag(parsed, 'llm-base-url') ?? process.env.TEA_LLM_BASE_URL;
  if (apiBase === undefined || apiBase === '')
    throw new UsageError('probe needs --llm-base-url <url> (e.g. http://localhost:11434/v1)');
  const apiKey = stringFlag(parsed, 'llm-api-key') ?? process.env.TEA_LLM_API_KEY;
  const model = stringFlag(parsed, 'llm-model') ?? process.env.TEA_LLM_MODEL;
  const timeout = stringFlag(parsed, 'timeout');
  const options: ProbeOptions = { api_base: apiBase };
  if (apiKey !== undefined && apiKey !== '') options.api_key = apiKey;
  if (model !== undefined && model !== '') options.model = model;
  if (timeout !== undefined) {
    const seconds = Number(timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError('--timeout needs a number of seconds');
    options.timeout_ms = seconds * 1000;
  }
  const report = await probe(options);
  const secrets = options.api_key !== undefined ? [options.api_key] : [];
  const text = parsed.flags.has('json') ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report);
  io.stdout(redactSecrets(text, secrets));
  const reachable =
    report.errors.models === undefined ||
    report.streams === true ||
    report.native_tools === true ||
    report.json_schema === true;
  return reachable ? 0 : 1;
}

/** The report as a small table plus advice lines. */
export function formatReport(report: ProbeReport): string {
  const mark = (value: boolean | null): string => (value === null ? 'not tested' : value ? 'yes' : 'no');
  const rows: [string, string][] = [
    ['endpoint', report.api_base],
    [
      'models',
      report.models.length === 0
        ? '(none listed)'
        : report.models.slice(0, 8).join(', ') + (report.models.length > 8 ? `, … (${report.models.length})` : ''),
    ],
    ['model tested', report.model ?? '(none)'],
    ['streaming', mark(report.streams)],
    ['json_schema honoured', mark(report.json_schema)],
    ['native tool calls', mark(report.native_tools)],
    ['streamed tool calls', mark(report.streamed_tools)],
    [
      'tool calls arrive as',
      report.tool_calls === null
        ? 'not tested'
        : report.tool_calls === 'text'
          ? `text (${report.tool_call_format ?? '?'}; tea-edge reads it)`
          : report.tool_calls,
    ],
    ['embeddings', mark(report.embeddings)],
    [
      'thinking arrives as',
      report.reasoning === null
        ? 'not tested'
        : report.reasoning === 'think_tags'
          ? '<think> tags in the answer (taken out)'
          : report.reasoning === 'field'
            ? 'a separate field'
            : 'none',
    ],
    ['server', `${report.server.kind}${report.server.version !== undefined ? ` ${report.server.version}` : ''}`],
    [
      'context size',
      report.server.context_size === undefined
        ? 'not reported'
        : `${report.server.context_size} tokens (${report.server.context_source ?? ''})`,
    ],
  ];
  if (report.server.capabilities !== undefined)
    rows.push(['model capabilities', report.server.capabilities.join(', ')]);
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = rows.map(([name, value]) => `${name.padEnd(width)}  ${value}`);
  for (const [check, error] of Object.entries(report.errors)) lines.push(`  ${check}: ${error}`);
  lines.push('', 'Advice:', ...report.advice.map((line) => `- ${line}`));
  return `${lines.join('\n')}\n`;
}
