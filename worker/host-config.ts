/**
 * Reading a host's configuration strings (Workers vars and secrets, Deno environment variables)
 * into app options: API tokens, CORS origins, model endpoint overrides, numbers.
 */
import { AgentError } from '../src/core/agent-error.js';
import type { AppOptions } from './app.js';
import { secretsFromNames } from '../src/spec/env-names.js';
import { quoteText } from '../src/util/cut-text.js';
import { stringOf } from '../src/util/text-of.js';

/** Plain-string settings a host passes in (all optional). */
export interface HostVariables {
  /** `token:role,token2:role2` or a JSON object `{"token": "role"}`; a token alone gets role `user`. */
  API_TOKENS?: string;
  /** Comma-separated roles that may fork and resume any caller's run (default `admin`); others only their own. */
  ADMIN_ROLES?: string;
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

/**
 * The number a host variable holds (an integer unless `integer: false`, within `min`..`max`), or
 * undefined when it is unset or empty. Anything else is HOST_CONFIG naming the variable: a typo in
 * a deployment's configuration must not quietly fall back to a default.
 */
export function numberVariable(
  name: string,
  text: string | undefined,
  range: { min: number; max?: number; integer?: boolean },
): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const value = Number(text.trim());
  const integer = range.integer ?? true;
  if (
    !Number.isFinite(value) ||
    (integer && !Number.isInteger(value)) ||
    value < range.min ||
    (range.max !== undefined && value > range.max)
  ) {
    const kind = integer ? 'an integer' : 'a number';
    const bounds = range.max !== undefined ? `from ${range.min} to ${range.max}` : `≥ ${range.min}`;
    throw new AgentError('HOST_CONFIG', `${name} must be ${kind} ${bounds}, got ${quoteText(text, 40)}`, {
      field: name,
    });
  }
  return value;
}

/** Parses API_TOKENS; throws HOST_CONFIG on a malformed value (a deployment mistake). */
export function parseTokens(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  if (text.trim().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AgentError('HOST_CONFIG', 'API_TOKENS is not valid JSON', { field: 'API_TOKENS' });
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Object.values(parsed).some((role) => typeof role !== 'string')
    ) {
      throw new AgentError('HOST_CONFIG', 'API_TOKENS must map each token to a role name', { field: 'API_TOKENS' });
    }
    return { ...(parsed as Record<string, string>) };
  }
  const tokens: Record<string, string> = {};
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const separator = entry.lastIndexOf(':');
    if (separator <= 0) tokens[entry] = 'user';
    else tokens[entry.slice(0, separator)] = entry.slice(separator + 1) || 'user';
  }
  return tokens;
}

/** `{secrets}` from a comma-separated list of variable names (`where`: the variable holding it), or {}. */
export function agentSecrets(
  list: string | undefined,
  lookup: (name: string) => string | undefined,
  where: string,
): Pick<AppOptions, 'secrets'> {
  const names = (list ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length > 0 ? { secrets: secretsFromNames(names, lookup, where) } : {};
}

/**
 * The app options a host's variables give (everything but agents and stores). `lookup` reads the
 * variables AGENT_SECRETS names (by default from `variables` itself: a Workers `env`).
 */
export function optionsFromVariables(
  variables: HostVariables,
  lookup: (name: string) => string | undefined = (name) => stringOf((variables as Record<string, unknown>)[name]),
): Partial<AppOptions> {
  const options: Partial<AppOptions> = {};
  Object.assign(options, agentSecrets(variables.AGENT_SECRETS, lookup, 'AGENT_SECRETS'));
  const tokens = parseTokens(variables.API_TOKENS);
  if (tokens !== undefined) options.auth = { tokens };
  const adminRoles = variables.ADMIN_ROLES?.split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  if (options.auth !== undefined && adminRoles !== undefined) options.auth.adminRoles = adminRoles;
  const origins = variables.CORS_ORIGINS?.trim();
  if (origins !== undefined && origins !== '') {
    options.cors = {
      origins:
        origins === '*'
          ? '*'
          : origins
              .split(',')
              .map((origin) => origin.trim())
              .filter(Boolean),
    };
  }
  const overrides: Record<string, string> = {};
  if (variables.LLM_BASE_URL) overrides.api_base = variables.LLM_BASE_URL;
  if (variables.LLM_MODEL) overrides.model = variables.LLM_MODEL;
  if (variables.LLM_API_KEY) overrides.api_key = variables.LLM_API_KEY;
  // The key is an override only: redacted everywhere, sent only to the host's endpoint, and never
  // in `secrets`, where any agent's templates could read it and send it elsewhere.
  if (Object.keys(overrides).length > 0) options.llm = { overrides };
  const maxBody = numberVariable('MAX_BODY_BYTES', variables.MAX_BODY_BYTES, { min: 1 });
  if (maxBody !== undefined) options.limits = { maxBodyBytes: maxBody };
  const heartbeat = numberVariable('SSE_HEARTBEAT_MS', variables.SSE_HEARTBEAT_MS, { min: 0 });
  if (heartbeat !== undefined) options.sseHeartbeatMs = heartbeat;
  return options;
}
