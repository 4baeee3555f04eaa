/**
 * Reading a host's configuration strings (Workers vars and secrets, Deno environment variables)
 * into app options: API tokens, CORS origins, model endpoint overrides, numbers.
 */
import { AgentError } from '../src/errors/agent-error.js';
import type { AppOptions } from './app.js';
import { secretsFromNames } from '../src/spec/env-names.js';

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Plain-string settings a host passes in (all optional). */
export interface HostVariables {
  /** `token:role,token2:role2` or a JSON object `{"token": "role"}`; a token alone gets role `user`. */
  API_TOKENS?: string;
  /**
   * Comma-separated origins allowed to call from a browser besides the app's own, or `*`: they get
   * CORS headers, and any other `Origin` is refused (403).
   */
  CORS_ORIGINS?: string;
  LLM_BASE_URL?: string;
  LLM_MODEL?: string;
  LLM_API_KEY?: string;
  /** Request body limit in bytes. */
  MAX_BODY_BYTES?: string;
  /** Milliseconds between SSE keep-alive comments (default 5000). */
  SSE_HEARTBEAT_MS?: string;
  /**
   * Comma-separated names of other variables (Workers secrets, environment variables) that agents
   * get as `secrets.NAME` (templates, MCP headers `{secret: NAME}`); each must be set, and none may
   * be the model key. Their values are redacted from every answer, event and trace.
   */
  AGENT_SECRETS?: string;
}

/** Parses API_TOKENS; throws INVALID_PARAMS on a malformed value (a deployment mistake). */
export function parseTokens(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (text.trim().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AgentError('INVALID_PARAMS', 'API_TOKENS is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Object.values(parsed).some((role) => typeof role !== 'string')) {
      throw new AgentError('INVALID_PARAMS', 'API_TOKENS must map each token to a role name');
    }
    return { ...(parsed as Record<string, string>) };
  }
  const tokens: Record<string, string> = {};
  for (const entry of text.split(',').map((part) => part.trim()).filter(Boolean)) {
    const separator = entry.lastIndexOf(':');
    if (separator <= 0) tokens[entry] = 'user';
    else tokens[entry.slice(0, separator)] = entry.slice(separator + 1) || 'user';
  }
  return tokens;
}

/** `{secrets}` from a comma-separated list of variable names (`where`: the variable holding it), or {}. */
export function agentSecrets(list: string | undefined, lookup: (name: string) => string | undefined, where: string): Pick<AppOptions, 'secrets'> {
  const names = (list ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  return names.length > 0 ? { secrets: secretsFromNames(names, lookup, where) } : {};
}

/**
 * The app options a host's variables give (everything but agents and stores). `lookup` reads the
 * variables AGENT_SECRETS names (by default from `variables` itself: a Workers `env`).
 */
export function optionsFromVariables(variables: HostVariables, lookup: (name: string) => string | undefined = (name) => stringOf((variables as Record<string, unknown>)[name])): Partial<AppOptions> {
  const options: Partial<AppOptions> = {};
  Object.assign(options, agentSecrets(variables.AGENT_SECRETS, lookup, 'AGENT_SECRETS'));
  const tokens = parseTokens(variables.API_TOKENS);
  if (tokens !== undefined) options.auth = { tokens };
  const origins = variables.CORS_ORIGINS?.trim();
  if (origins !== undefined && origins !== '') {
    options.cors = { origins: origins === '*' ? '*' : origins.split(',').map((origin) => origin.trim()).filter(Boolean) };
  }
  const overrides: Record<string, string> = {};
  if (variables.LLM_BASE_URL) overrides.api_base = variables.LLM_BASE_URL;
  if (variables.LLM_MODEL) overrides.model = variables.LLM_MODEL;
  if (variables.LLM_API_KEY) overrides.api_key = variables.LLM_API_KEY;
  // The key is an override only: redacted everywhere, sent only to the host's endpoint, and never
  // in `secrets`, where any agent's templates could read it and send it elsewhere.
  if (Object.keys(overrides).length > 0) options.llm = { overrides };
  const maxBody = Number(variables.MAX_BODY_BYTES);
  if (variables.MAX_BODY_BYTES !== undefined && Number.isInteger(maxBody) && maxBody > 0) options.limits = { maxBodyBytes: maxBody };
  const heartbeat = Number(variables.SSE_HEARTBEAT_MS);
  if (variables.SSE_HEARTBEAT_MS !== undefined && Number.isInteger(heartbeat) && heartbeat >= 0) options.sseHeartbeatMs = heartbeat;
  return options;
}
