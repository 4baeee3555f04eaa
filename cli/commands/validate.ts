/**
 * `tea-edge validate <agent.yaml ...> [--json]`: checks agent files without running them.
 * Text: `ok` (warnings on stderr) or every problem as `file:line:column CODE message`, one per
 * line on stderr. `--json`: one object `{ok, errors: [{file, line, column, code, message, node?,
 * field?}], warnings: [{file, message}]}` on stdout, for editors and CI. Exit 0, or 2 on errors.
 */
import { toAgentError } from '../../src/errors/agent-error.js';
import { problemsOf, type LoadProblem } from '../../src/errors/load-problems.js';
import { UsageError } from '../args.js';
import { displayName, formatLoadError, loadAgentFile } from '../agent-file.js';
import type { CliIo } from '../io.js';

const USAGE = 'usage: tea-edge validate <agent.yaml> [more.yaml ...] [--json]';

export async function validateCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${USAGE}\n  --json  print {ok, errors, warnings} as JSON on stdout\n`);
    return 0;
  }
  const json = argv.includes('--json');
  const unknown = argv.find((argument) => argument.startsWith('-') && argument !== '--json');
  if (unknown !== undefined) throw new UsageError(`unknown option ${unknown}\n${USAGE}`);
  const files = argv.filter((argument) => !argument.startsWith('-'));
  if (files.length === 0) throw new UsageError(USAGE);
  const errors: LoadProblem[] = [];
  const warnings: Array<{ file: string; message: string }> = [];
  for (const file of files) {
    try {
      const { agent } = await loadAgentFile(file);
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

/** Every error carries `line` and `column` (null when unknown), as editors expect. */
function withPlace(problem: LoadProblem): Record<string, unknown> {
  const { file, line, column, code, message, ...rest } = problem;
  return { file, line: line ?? null, column: column ?? null, code, message, ...rest };
}
