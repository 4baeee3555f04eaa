/**
 * `tea-edge run` and `tea-edge resume`.
 *   exit 0 completed · 1 run failed (stderr: code, node, message) · 2 invalid agent or usage
 *   · 3 interrupted (stdout: {run_id, status: "interrupted", waiting_for})
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createFsStores } from '../../adapters/fs/index.js';
import { AgentError, toAgentError } from '../../src/errors/agent-error.js';
import type { AgentEvent } from '../../src/events/event.js';
import { resumeAgent, runAgent } from '../../src/graph/run-agent.js';
import { loadAgent } from '../../src/graph/load-agent.js';
import type { AgentRun, LlmOverrides, RunOptions, RunResult } from '../../src/graph/run-types.js';
import { parseArgs, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { formatLoadError, loadAgentFile } from '../agent-file.js';
import type { CliIo } from '../io.js';
import { replayOptions } from './replay.js';

const BOOLEAN_FLAGS = new Set(['stream', 'approve', 'deny', 'record']);
const VALUE_FLAGS = new Set(['input', 'input-file', 'llm-base-url', 'llm-model', 'llm-api-key', 'llm-provider', 'trace-dir', 'state-update', 'role', 'replay']);

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, BOOLEAN_FLAGS, VALUE_FLAGS);
  const file = args.positionals[0];
  if (file === undefined || args.positionals.length > 1) throw new UsageError('usage: tea-edge run <agent.yaml> [--input <json> | --input-file <path>] [--stream] [--trace-dir <dir>] [--llm-base-url <url>] [--llm-model <name>] [--llm-api-key <key>]');
  const input = await readInput(args);
  let loaded;
  try {
    loaded = await loadAgentFile(file);
  } catch (error) {
    io.stderr(formatLoadError(toAgentError(error, 'INVALID_AGENT'), file) + '\n');
    return 2;
  }
  const options = await baseOptions(args);
  if (args.flags.has('replay')) Object.assign(options, await replayOptions(stringFlag(args, 'replay')!));
  if (args.flags.has('record')) options.capturePayloads = true;
  const run = runAgent(loaded.agent, input, options);
  const traceDir = stringFlag(args, 'trace-dir');
  if (traceDir !== undefined) await rememberAgentFile(traceDir, run.runId, path.resolve(file));
  return report(run, args, io);
}

export async function resumeCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, BOOLEAN_FLAGS, VALUE_FLAGS);
  const runId = args.positionals[0];
  const traceDir = stringFlag(args, 'trace-dir');
  if (runId === undefined || traceDir === undefined) throw new UsageError('usage: tea-edge resume <run-id> --trace-dir <dir> [--approve | --deny] [--state-update <json>]');
  if (args.flags.has('approve') && args.flags.has('deny')) throw new UsageError('--approve and --deny exclude each other');
  const agentFile = await readAgentFileFor(traceDir, runId);
  if (agentFile === undefined) {
    io.stderr(`NOT_FOUND no run '${runId}' in ${traceDir}\n`);
    return 1;
  }
  let agent;
  try {
    agent = loadAgent(await readFile(agentFile, 'utf8'), { file: path.relative(process.cwd(), agentFile) });
  } catch (error) {
    io.stderr(formatLoadError(toAgentError(error, 'INVALID_AGENT'), agentFile) + '\n');
    return 2;
  }
  const stateUpdate = stringFlag(args, 'state-update');
  const run = resumeAgent(
    agent,
    runId,
    {
      ...(stateUpdate !== undefined ? { state_update: parseJsonObject(stateUpdate, '--state-update') } : {}),
      ...(args.flags.has('approve') ? { approval: { approved: true } } : args.flags.has('deny') ? { approval: { approved: false } } : {}),
    },
    await baseOptions(args),
  );
  return report(run, args, io);
}

async function report(run: AgentRun, args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.flags.has('stream')) {
    for await (const event of run) io.stdout(JSON.stringify(event) + '\n');
  }
  const result = await run.result;
  return finish(result, args.flags.has('stream'), io);
}

function finish(result: RunResult, streamed: boolean, io: CliIo): number {
  if (result.status === 'completed') {
    if (!streamed) io.stdout(JSON.stringify(result.state, null, 2) + '\n');
    return 0;
  }
  if (result.status === 'interrupted') {
    const interrupt = result.interrupt;
    const waitingFor =
      interrupt?.kind === 'tool_confirmation'
        ? { kind: 'tool_confirmation', node: interrupt.node, tool: interrupt.tool, arguments: interrupt.arguments, call_id: interrupt.call_id }
        : { kind: 'interrupt', node: interrupt?.node, position: interrupt?.kind === 'interrupt' ? interrupt.position : undefined };
    if (!streamed) io.stdout(JSON.stringify({ run_id: result.run_id, status: 'interrupted', stop_reason: result.stop_reason, waiting_for: waitingFor, checkpoint_id: interrupt?.checkpoint_id, state: result.state }, null, 2) + '\n');
    return 3;
  }
  const error = result.error;
  io.stderr(`${error?.code ?? 'INTERNAL'}${error?.node !== undefined ? ` node=${error.node}` : ''} ${error?.message ?? 'the run failed'} (run ${result.run_id}, stop reason ${result.stop_reason})\n`);
  return 1;
}

async function baseOptions(args: ParsedArgs): Promise<RunOptions> {
  const overrides: LlmOverrides = {};
  const baseUrl = stringFlag(args, 'llm-base-url') ?? process.env.TEA_LLM_BASE_URL;
  const model = stringFlag(args, 'llm-model') ?? process.env.TEA_LLM_MODEL;
  const apiKey = stringFlag(args, 'llm-api-key') ?? process.env.TEA_LLM_API_KEY;
  const provider = stringFlag(args, 'llm-provider') ?? process.env.TEA_LLM_PROVIDER;
  if (baseUrl) overrides.api_base = baseUrl;
  if (model) overrides.model = model;
  if (apiKey) overrides.api_key = apiKey;
  if (provider) overrides.provider = provider;
  else if (baseUrl) overrides.provider = 'openai-compatible';
  const options: RunOptions = { llm: { overrides } };
  const role = stringFlag(args, 'role');
  if (role !== undefined) options.role = role;
  const traceDir = stringFlag(args, 'trace-dir');
  if (traceDir !== undefined) Object.assign(options, createFsStores(traceDir));
  return options;
}

async function readInput(args: ParsedArgs): Promise<Record<string, unknown>> {
  const inline = stringFlag(args, 'input');
  const file = stringFlag(args, 'input-file');
  if (inline !== undefined && file !== undefined) throw new UsageError('give either --input or --input-file, not both');
  if (inline !== undefined) return parseJsonObject(inline, '--input');
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --input-file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    return parseJsonObject(text, `--input-file ${file}`);
  }
  return {};
}

function parseJsonObject(text: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}

/** The CLI keeps which agent file a run used, so `resume` works from a later process. */
async function rememberAgentFile(traceDir: string, runId: string, agentFile: string): Promise<void> {
  const directory = path.join(traceDir, 'cli');
  await mkdir(directory, { recursive: true });
  await writeFile(path.join(directory, `${encodeURIComponent(runId)}.json`), JSON.stringify({ agent_file: agentFile }));
}

async function readAgentFileFor(traceDir: string, runId: string): Promise<string | undefined> {
  try {
    const text = await readFile(path.join(traceDir, 'cli', `${encodeURIComponent(runId)}.json`), 'utf8');
    return (JSON.parse(text) as { agent_file: string }).agent_file;
  } catch {
    return undefined;
  }
}

export type { AgentEvent, AgentError };
