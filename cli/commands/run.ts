/**
 * `tea-edge run` and `tea-edge resume` (usage in cli/usage.ts, outputs and exit codes in
 * run-report.ts). `run --trace-dir` keeps, beside the run, the agent file and model endpoint it
 * used (run-memo.ts), so `resume` from a later process needs only the run id.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  toAgentError,
  loadAgent,
  runAgent,
  pendingConfirmation,
  resumeAgent,
  type ResumeInput,
} from '../../src/host.js';
import { ALL_SCRIPT_SANDBOXES, withPrologWhenUsed } from '../../src/host-scripts.js';
import { parseArgs, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { loadAgentFile, withPythonWhenInstalled } from '../agent-file.js';
import { agentFolderSeam } from '../host-seams.js';
import { redactingIo, type CliIo } from '../io.js';
import { oneLine } from '../terminal-text.js';
import { loadErrorLines } from './load-error-lines.js';
import { loadReplay } from './replay.js';
import { readRunMemo, writeRunMemo } from './run-memo.js';
import {
  BOOLEAN_FLAGS,
  hostSecrets,
  llmOverrides,
  parseJsonObject,
  readInput,
  REPEATABLE_FLAGS,
  runOptions,
  shellCommands,
  templateEnv,
  VALUE_FLAGS,
} from './run-options.js';
import { report } from './run-report.js';

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, BOOLEAN_FLAGS, VALUE_FLAGS, REPEATABLE_FLAGS);
  const file = args.positionals[0];
  if (file === undefined || args.positionals.length > 1)
    throw new UsageError('usage: tea-edge run <agent.yaml> [options] (tea-edge run --help)');
  for (const flag of ['approve', 'deny', 'state-update']) {
    if (args.flags.has(flag)) throw new UsageError(`--${flag} is for tea-edge resume`);
  }
  const traceDir = stringFlag(args, 'trace-dir');
  const record = args.flags.has('record');
  if (record && traceDir === undefined)
    throw new UsageError('--record keeps model calls in the trace: give --trace-dir <dir> too');
  let input = await readInput(args);
  let loaded;
  try {
    loaded = await loadAgentFile(file, shellCommands(args).length > 0 ? ['shell'] : []);
  } catch (error) {
    io.stderr(loadErrorLines(toAgentError(error, 'INVALID_AGENT'), file));
    return 2;
  }
  const overrides = llmOverrides(args);
  const options = { ...runOptions(args, overrides), ...agentFolderSeam(file, args.flags.has('accept-file-race')) };
  options.env = templateEnv(args, loaded.agent.spec.settings, overrides.api_key);
  const secrets = hostSecrets(args, overrides.api_key);
  options.secrets = secrets;
  const replayTarget = stringFlag(args, 'replay');
  if (replayTarget !== undefined) {
    const replay = await loadReplay(replayTarget);
    options.llm = { ...options.llm, ...replay.options.llm };
    input ??= replay.input;
  }
  if (record) options.capturePayloads = true;
  if (traceDir !== undefined) {
    // Written before the run starts: a trace directory that cannot be written stops here, not mid-run.
    options.runId = crypto.randomUUID();
    await writeRunMemo(traceDir, options.runId, { agent_file: path.resolve(file), llm: overrides, record });
  }
  const run = runAgent(loaded.agent, input ?? {}, options);
  return report(
    run,
    { stream: args.flags.has('stream'), ...(traceDir !== undefined ? { traceDir } : {}) },
    redactingIo(io, [overrides.api_key, ...Object.values(secrets)]),
  );
}

export async function resumeCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, BOOLEAN_FLAGS, VALUE_FLAGS, REPEATABLE_FLAGS);
  const runId = args.positionals[0];
  const traceDir = stringFlag(args, 'trace-dir');
  if (runId === undefined || traceDir === undefined || args.positionals.length > 1)
    throw new UsageError(
      'usage: tea-edge resume <run-id> --trace-dir <dir> [--approve | --deny] [--state-update <json>]',
    );
  for (const flag of ['input', 'input-file', 'replay', 'record']) {
    if (args.flags.has(flag)) throw new UsageError(`--${flag} is for tea-edge run`);
  }
  if (args.flags.has('approve') && args.flags.has('deny'))
    throw new UsageError('--approve and --deny exclude each other');
  const memo = await readRunMemo(traceDir, runId);
  if (memo === undefined) {
    io.stderr(`${oneLine(`NOT_FOUND no run '${runId}' started by tea-edge run in ${traceDir}`)}\n`);
    return 1;
  }
  let agent;
  try {
    const source = await readFile(memo.agent_file, 'utf8');
    const hostProviders = shellCommands(args).length > 0 ? ['shell'] : [];
    agent = loadAgent(source, {
      file: path.relative(process.cwd(), memo.agent_file),
      scripts: withPythonWhenInstalled(await withPrologWhenUsed(ALL_SCRIPT_SANDBOXES, [source])),
      hostProviders,
    });
  } catch (error) {
    io.stderr(loadErrorLines(toAgentError(error, 'INVALID_AGENT'), memo.agent_file));
    return 2;
  }
  const overrides = llmOverrides(args, memo.llm);
  const options = {
    ...runOptions(args, overrides),
    ...agentFolderSeam(memo.agent_file, args.flags.has('accept-file-race')),
  };
  options.env = templateEnv(args, agent.spec.settings, overrides.api_key);
  const secrets = hostSecrets(args, overrides.api_key);
  options.secrets = secrets;
  if (memo.record === true) options.capturePayloads = true;
  await requireAnswerToConfirmation(args, options.checkpointStore, runId);
  const stateUpdate = stringFlag(args, 'state-update');
  const resume: ResumeInput = {
    ...(stateUpdate !== undefined ? { state_update: parseJsonObject(stateUpdate, '--state-update') } : {}),
    ...(args.flags.has('approve')
      ? { approval: { approved: true } }
      : args.flags.has('deny')
        ? { approval: { approved: false } }
        : {}),
  };
  return report(
    resumeAgent(agent, runId, resume, options),
    { stream: args.flags.has('stream') },
    redactingIo(io, [overrides.api_key, ...Object.values(secrets)]),
  );
}

/** A run waiting for a tool confirmation is resumed with an answer, never by default. */
async function requireAnswerToConfirmation(
  args: ParsedArgs,
  store: ReturnType<typeof runOptions>['checkpointStore'],
  runId: string,
): Promise<void> {
  if (args.flags.has('approve') || args.flags.has('deny') || store === undefined) return;
  const pending = await pendingConfirmation(runId, store);
  if (pending !== undefined) {
    throw new UsageError(
      `run ${runId} waits for a confirmation of tool '${pending.tool}' (node ${pending.node}): resume it with --approve or --deny`,
    );
  }
}
