/** The flags `run` and `resume` share, turned into RunOptions (endpoint, role, budget, stores). */
import { readFile } from 'node:fs/promises';
import { createFsStores } from '../../adapters/fs/index.js';
import {
  BUDGET_CEILINGS,
  ROLE_ORDER,
  envNameRefusal,
  secretsFromNames,
  AgentError,
  type LlmOverrides,
  type RunOptions,
  type AgentSettings,
} from '../../src/host.js';
import { integerFlag, stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { filesFlag } from '../host-seams.js';
import { parseShellProvider, withShellProviders, type ShellCommand } from '../shell-model.js';

export const BOOLEAN_FLAGS: ReadonlySet<string> = new Set(['stream', 'approve', 'deny', 'record', 'accept-file-race']);
/** Flags given once per value: `--env NAME`, `--secret NAME`, `--shell-provider NAME=COMMAND` (repeatable). */
export const REPEATABLE_FLAGS: ReadonlySet<string> = new Set(['env', 'secret', 'shell-provider']);
export const VALUE_FLAGS: ReadonlySet<string> = new Set([
  'input',
  'input-file',
  'llm-base-url',
  'llm-model',
  'llm-api-key',
  'llm-provider',
  'trace-dir',
  'state-update',
  'role',
  'replay',
  'max-llm-calls',
  'files',
]);

/**
 * The model endpoint overrides: flags, then (on resume) what the run was started with, then the
 * TEA_LLM_* environment. The key comes from the flag or the environment only: it is never stored.
 */
export function llmOverrides(args: ParsedArgs, stored: Omit<LlmOverrides, 'api_key'> = {}): LlmOverrides {
  const environment = process.env;
  const pick = (flag: string, storedValue: string | undefined, variable: string): string | undefined =>
    nonEmpty(stringFlag(args, flag)) ?? nonEmpty(storedValue) ?? nonEmpty(environment[variable]);
  const overrides: LlmOverrides = {};
  const baseUrl = pick('llm-base-url', stored.api_base, 'TEA_LLM_BASE_URL');
  const model = pick('llm-model', stored.model, 'TEA_LLM_MODEL');
  const apiKey = pick('llm-api-key', undefined, 'TEA_LLM_API_KEY');
  const provider = pick('llm-provider', stored.provider, 'TEA_LLM_PROVIDER');
  if (baseUrl !== undefined) overrides.api_base = baseUrl;
  if (model !== undefined) overrides.model = model;
  if (apiKey !== undefined) overrides.api_key = apiKey;
  if (provider !== undefined) overrides.provider = provider;
  else if (baseUrl !== undefined) overrides.provider = 'openai-compatible';
  return overrides;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

export function runOptions(args: ParsedArgs, overrides: LlmOverrides): RunOptions {
  const options: RunOptions = { llm: { overrides } };
  const shell = shellCommands(args);
  if (shell.length > 0) options.llm = { overrides, providerFactory: withShellProviders(shell) };
  const role = stringFlag(args, 'role');
  if (role !== undefined) {
    if (!(ROLE_ORDER as readonly string[]).includes(role))
      throw new UsageError(`unknown role '${role}' (roles: ${ROLE_ORDER.join(', ')})`);
    options.role = role;
  }
  const maxLlmCalls = integerFlag(args, 'max-llm-calls', 1, BUDGET_CEILINGS.max_llm_calls);
  if (maxLlmCalls !== undefined) options.limitOverrides = { max_llm_calls: maxLlmCalls };
  const traceDir = stringFlag(args, 'trace-dir');
  if (traceDir !== undefined) Object.assign(options, createFsStores(traceDir));
  const files = filesFlag(stringFlag(args, 'files'), args.flags.has('accept-file-race'));
  if (files !== undefined) options.files = files;
  return options;
}

/** The commands `--shell-provider NAME=COMMAND [ARG...]` names (TEA's `provider: shell`, cli/shell-model.ts). */
export function shellCommands(args: ParsedArgs): ShellCommand[] {
  return (args.lists.get('shell-provider') ?? []).map((text) => {
    try {
      return parseShellProvider(text);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  });
}

/**
 * The environment templates see as `env`: only the variables named with `--env NAME` or in the
 * agent's `settings.env`, never the whole process environment. An unset variable is left out (so
 * `env.NAME` is none, as in TEA). The model key is refused by name (src/spec/env-names.ts), and by
 * value: a named variable that holds the key in use is refused too.
 */
export function templateEnv(
  args: ParsedArgs,
  settings: Readonly<Pick<AgentSettings, 'env'>>,
  modelKey: string | undefined,
): Record<string, string> {
  const named = args.lists.get('env') ?? [];
  for (const name of named) {
    const refusal = envNameRefusal(name);
    if (refusal !== undefined) throw new UsageError(`--env ${refusal}`);
  }
  const listed = (settings.env ?? []).filter((name): name is string => typeof name === 'string');
  const env: Record<string, string> = {};
  for (const name of new Set([...listed, ...named])) {
    const value = process.env[name];
    if (value === undefined) continue;
    if (modelKey !== undefined && modelKey !== '' && value === modelKey) {
      throw new UsageError(`--env ${name}: it holds the model key in use, which templates never see`);
    }
    env[name] = value;
  }
  return env;
}

/** The run input from --input or --input-file; undefined when neither is given. */
export async function readInput(args: ParsedArgs): Promise<Record<string, unknown> | undefined> {
  const inline = stringFlag(args, 'input');
  const file = stringFlag(args, 'input-file');
  if (inline !== undefined && file !== undefined) throw new UsageError('give either --input or --input-file, not both');
  if (inline !== undefined) return parseJsonObject(inline, '--input');
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read --input-file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parseJsonObject(text, `--input-file ${file}`);
}

export function parseJsonObject(text: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${where} must be a JSON object`);
  return value as Record<string, unknown>;
}

/**
 * The secrets agents get (`secrets.NAME`, MCP headers `{secret: NAME}`): the environment variables
 * named with `--secret NAME`, each set. A name also given as `--env` is refused: `env` values are
 * not redacted, secrets are (from everything the CLI prints and stores). So is the model key, by
 * name or by value.
 */
export function hostSecrets(args: ParsedArgs, modelKey: string | undefined): Record<string, string> {
  const names = args.lists.get('secret') ?? [];
  const both = names.find((name) => (args.lists.get('env') ?? []).includes(name));
  if (both !== undefined)
    throw new UsageError(`--secret ${both} and --env ${both}: a secret is never also a plain env value`);
  try {
    const secrets = secretsFromNames(names, (name) => process.env[name], '--secret');
    const copy = Object.keys(secrets).find(
      (name) => modelKey !== undefined && modelKey !== '' && secrets[name] === modelKey,
    );
    if (copy !== undefined)
      throw new UsageError(`--secret ${copy}: it holds the model key in use, which agents never get`);
    return secrets;
  } catch (error) {
    if (AgentError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}
