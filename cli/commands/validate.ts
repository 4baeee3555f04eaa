/**
 * `tea-edge validate <agent.yaml ...> [--json]`: checks agent files without running them.
 * Text: `ok` (warnings on stderr) or every problem as `file:line:column CODE message`, one per
 * line on stderr. `--json`: one object `{ok, errors: [{file, line, column, code, message, node?,
 * field?}], warnings: [{file, message}]}` on stdout, for editors and CI. Exit 0, or 2 on errors.
 * `--strict`: every warning is an error (a node nothing routes to, an edge from __start__ TEA would
 * not follow, an ignored TEA key), with its line and column when the loader knows them.
 * `--online`: also contacts the agent's MCP servers (settings.mcp, docs/mcp.md) and reports, as
 * UNKNOWN_TOOL, every allow-listed tool a server does not offer or a server that cannot be listed.
 * `--secret NAME` (repeatable) gives those servers' `{secret: NAME}` headers the environment
 * variable NAME, as `run --secret` does; its value is redacted from the output.
 */
import {
  toAgentError,
  formatProblem,
  problemsOf,
  secretsFromNames,
  AgentError,
  type LoadProblem,
  type GraphWarning,
} from '../../src/host.js';
import { probeMcpServers } from '../../src/host-probe.js';
import { agentFileProblems } from './validate-agent-files.js';
import { UsageError } from '../args.js';
import { displayName, formatLoadError, loadAgentFile } from '../agent-file.js';
import { redactingIo, type CliIo } from '../io.js';
import { parseShellProvider } from '../shell-model.js';

/** `--shell-provider NAME=COMMAND` pairs out of the arguments: the agents may then use `provider: shell`. */
function takeShellProviders(argv: readonly string[]): { argv: string[]; shell: boolean } {
  const rest: string[] = [];
  let shell = false;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] !== '--shell-provider') {
      rest.push(argv[index]!);
      continue;
    }
    const value = argv[++index];
    if (value === undefined) throw new UsageError(`--shell-provider needs NAME=COMMAND\n${USAGE}`);
    try {
      parseShellProvider(value);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    shell = true;
  }
  return { argv: rest, shell };
}
import { COMMAND_USAGE } from '../usage.js';

/** `--secret NAME` pairs out of the arguments, read from the environment (only with --online). */
function takeSecrets(argv: readonly string[]): { argv: string[]; secrets: Record<string, string> } {
  const rest: string[] = [];
  const names: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] !== '--secret') {
      rest.push(argv[index]!);
      continue;
    }
    const name = argv[++index];
    if (name === undefined || name.startsWith('-')) throw new UsageError(`--secret needs a variable name\n${USAGE}`);
    names.push(name);
  }
  if (names.length > 0 && !rest.includes('--online'))
    throw new UsageError('--secret is for --online (it gives MCP servers their secret headers)');
  try {
    return { argv: rest, secrets: secretsFromNames(names, (name) => process.env[name], '--secret') };
  } catch (error) {
    if (AgentError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}

const USAGE = `usage: ${COMMAND_USAGE.validate!.split('\n')[0]}`;
const OPTIONS = ['--json', '--strict', '--online'];

export async function validateCommand(argvWithSecrets: string[], rawIo: CliIo): Promise<number> {
  if (argvWithSecrets.includes('--help') || argvWithSecrets.includes('-h')) {
    rawIo.stdout(COMMAND_USAGE.validate!);
    return 0;
  }
  const { argv: withoutShell, shell } = takeShellProviders(argvWithSecrets);
  const { argv, secrets } = takeSecrets(withoutShell);
  const io = redactingIo(rawIo, Object.values(secrets));
  const json = argv.includes('--json');
  const strict = argv.includes('--strict');
  const unknown = argv.find((argument) => argument.startsWith('-') && !OPTIONS.includes(argument));
  if (unknown !== undefined) throw new UsageError(`unknown option ${unknown}\n${USAGE}`);
  const files = argv.filter((argument) => !argument.startsWith('-'));
  if (files.length === 0) throw new UsageError(USAGE);
  const errors: LoadProblem[] = [];
  const warnings: Array<{ file: string; message: string }> = [];
  for (const file of files) {
    try {
      const { agent } = await loadAgentFile(file, shell ? ['shell'] : []);
      // Agent files it runs as sub-runs are checked too (a missing or broken one is an error here).
      const subRunProblems = await agentFileProblems(agent, file);
      if (subRunProblems.length > 0) {
        errors.push(...subRunProblems);
        if (!json) io.stderr(subRunProblems.map(formatProblem).join('\n') + '\n');
        continue;
      }
      if (argv.includes('--online') && agent.spec.settings.mcp !== undefined) {
        const offline = (await probeMcpServers(agent.spec.settings, { secrets })).map(
          (problem): LoadProblem => ({
            file: displayName(file),
            code: 'UNKNOWN_TOOL',
            message: problem.message,
            field: 'settings.mcp.servers',
          }),
        );
        errors.push(...offline);
        if (!json)
          for (const problem of offline) io.stderr(`${problem.file} ${problem.code} ${problem.message} (--online)\n`);
        if (offline.length > 0) continue;
      }
      if (strict && agent.warnings.length > 0) {
        const promoted = strictErrors(agent.warnings, agent.spec.graphWarnings ?? [], displayName(file));
        errors.push(...promoted);
        if (!json)
          for (const problem of promoted)
            io.stderr(
              `${problem.file}${problem.line !== undefined ? `:${problem.line}:${problem.column ?? 1}` : ''} ${problem.code} ${problem.message} (--strict)\n`,
            );
        continue;
      }
      for (const warning of agent.warnings) warnings.push({ file: displayName(file), message: warning });
      if (!json) {
        for (const warning of agent.warnings) io.stderr(`${displayName(file)}: warning: ${warning}\n`);
        io.stdout(files.length > 1 ? `${file}: ok\n` : 'ok\n');
      }
    } catch (error) {
      const agentError = toAgentError(error, 'INVALID_AGENT');
      errors.push(...problemsOf(agentError, displayName(file)));
      if (!json) io.stderr(formatLoadError(agentError, displayName(file)) + '\n');
    }
  }
  if (json) io.stdout(JSON.stringify({ ok: errors.length === 0, errors: errors.map(withPlace), warnings }) + '\n');
  return errors.length > 0 ? 2 : 0;
}

/** The warnings of a loaded file as errors; graph warnings keep their place (line, column, node). */
function strictErrors(messages: string[], placed: GraphWarning[], file: string): LoadProblem[] {
  const byMessage = new Map(placed.map((warning) => [warning.message, warning]));
  return messages.map((message) => {
    const place = byMessage.get(message.replace(/ \(line \d+\)$/, ''));
    return {
      file,
      code: 'INVALID_AGENT',
      message: place?.message ?? message,
      ...(place?.line !== undefined ? { line: place.line, column: place.column ?? 1 } : {}),
      ...(place?.node !== undefined ? { node: place.node } : {}),
    };
  });
}

/** Every error carries `line` and `column` (null when unknown), as editors expect. */
function withPlace(problem: LoadProblem): Record<string, unknown> {
  const { file, line, column, code, message, ...rest } = problem;
  return { file, line: line ?? null, column: column ?? null, code, message, ...rest };
}
