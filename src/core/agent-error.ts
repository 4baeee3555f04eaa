/**
 * AgentError: the one error type of tea-edge. Every failure a user can see carries a code from a
 * closed list, a message (text only), where it happened as structured fields (`location`: file,
 * line, column, node, field) and structured details. The place is put into words once, at the
 * edges (CLI, validate, web demo) with `formatAgentError`; nothing parses it back out of the
 * message. Raw JavaScript errors are wrapped at each boundary with `toAgentError`.
 */

/** The closed list of error codes (docs/spec.md#8-errors), plus `LLM_HTTP_<status>`. */
export const ERROR_CODES = [
  'INVALID_AGENT',
  'UNKNOWN_ACTION',
  'UNKNOWN_TOOL',
  'UNSUPPORTED_LANGUAGE',
  'UNSUPPORTED_NODE_TYPE',
  'UNKNOWN_PROVIDER',
  'INVALID_PARAMS',
  'INPUT_INVALID',
  'TEMPLATE_ERROR',
  'TEMPLATE_LIMIT',
  'NO_ROUTE',
  'LUA_SYNTAX',
  'LUA_ERROR',
  'LUA_BUDGET',
  'PROLOG_SYNTAX',
  'PROLOG_ERROR',
  'PROLOG_BUDGET',
  'PYTHON_SYNTAX',
  'PYTHON_ERROR',
  'PYTHON_BUDGET',
  'SCRIPT_ENGINE_NOT_LOADED',
  'SCHEMA_INVALID',
  'LLM_UNAVAILABLE',
  'LLM_TIMEOUT',
  'LLM_BAD_RESPONSE',
  'REFLECTION_FAILED',
  'BUDGET_EXCEEDED',
  'STORAGE_ERROR',
  'INPUT_TOO_LARGE',
  'NOT_FOUND',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'METHOD_NOT_ALLOWED',
  'UNSUPPORTED_MEDIA_TYPE',
  'CONFLICT',
  'CANCELLED',
  'STATE_INVALID',
  'ACTION_FAILED',
  'TIMEOUT',
  // The server runs as many runs as it may and its waiting line is full: try again (503, Retry-After).
  'OVERLOADED',
  // The host's own configuration (a worker variable, a serve environment variable) is invalid.
  'HOST_CONFIG',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number] | `LLM_HTTP_${number}`;

const MARKER = Symbol.for('tea-edge.AgentError');

/** Where an error happened; every field optional (`formatAgentError` puts it into words). */
export interface ErrorLocation {
  agent?: string;
  file?: string;
  node?: string;
  field?: string;
  line?: number;
  column?: number;
}

export interface AgentErrorOptions extends ErrorLocation {
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** The JSON shape of an error, as stored in traces and returned over HTTP: the location as fields. */
export interface AgentErrorJson {
  code: ErrorCode;
  /** What went wrong, text only (the place is in the other fields). */
  message: string;
  file?: string;
  line?: number;
  column?: number;
  node?: string;
  /** The node field or action parameter at fault, when known. */
  field?: string;
  details?: Record<string, unknown>;
}

export class AgentError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly location: ErrorLocation;
  readonly [MARKER] = true;

  constructor(code: ErrorCode, message: string, options: AgentErrorOptions = {}) {
    const { details, cause, ...location } = options;
    super(message);
    this.name = 'AgentError';
    this.code = code;
    this.details = details ?? {};
    this.location = location;
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }

  /** @deprecated The message is text only now; read `message`. Kept while other branches merge. */
  get plainMessage(): string {
    return this.message;
  }

  /** The node the error happened in, when known. */
  get node(): string | undefined {
    return this.location.node;
  }

  /** The node field or action parameter at fault, when known. */
  get field(): string | undefined {
    return this.location.field;
  }

  /** True for AgentErrors from any copy of this module (the marker survives bundling twice). */
  static isInstance(value: unknown): value is AgentError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  toJSON(): AgentErrorJson {
    const { file, line, column, node, field } = this.location;
    const json: AgentErrorJson = { code: this.code, message: this.message };
    if (file !== undefined) json.file = file;
    if (line !== undefined) json.line = line;
    if (line !== undefined && column !== undefined) json.column = column;
    if (node !== undefined) json.node = node;
    if (field !== undefined) json.field = field;
    if (Object.keys(this.details).length > 0) json.details = this.details;
    return json;
  }
}

/**
 * The one printed form of an error's place and message, used at the edges (CLI stderr, the
 * web demo's headline): `file:line:column, node 'n', field 'f': message`, each part when known
 * (`agent 'a'` stands in for a missing file). Takes an AgentError or its JSON.
 */
export function formatAgentError(error: Pick<AgentErrorJson, 'message'> & ErrorLocation): string {
  const place = describeLocation(AgentError.isInstance(error) ? error.location : error);
  return place === '' ? error.message : `${place}: ${error.message}`;
}

/** `file:line:column, node 'n', field 'f'` with the parts that are known ('' when none). */
export function describeLocation(location: ErrorLocation): string {
  const parts: string[] = [];
  if (location.file !== undefined) {
    let place = location.file;
    if (location.line !== undefined) place += `:${location.line}`;
    if (location.line !== undefined && location.column !== undefined) place += `:${location.column}`;
    parts.push(place);
  } else if (location.agent !== undefined) {
    parts.push(`agent '${location.agent}'`);
  }
  if (location.node !== undefined) parts.push(`node '${location.node}'`);
  if (location.field !== undefined) parts.push(`field '${location.field}'`);
  return parts.join(', ');
}

/**
 * Wraps anything thrown into an AgentError. AgentErrors pass through (with the location filled in
 * where they had none); other values become `fallbackCode` with their message, never their stack.
 */
export function toAgentError(
  error: unknown,
  fallbackCode: ErrorCode = 'INTERNAL',
  location: ErrorLocation = {},
): AgentError {
  if (AgentError.isInstance(error)) {
    if (location.node !== undefined && error.location.node === undefined) {
      return new AgentError(error.code, error.message, {
        ...error.location,
        node: location.node,
        details: error.details,
        cause: error,
      });
    }
    return error;
  }
  if (isAbortError(error)) {
    return new AgentError('CANCELLED', 'the run was cancelled', { ...location });
  }
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : 'unknown error';
  const kind = error instanceof Error && error.name !== 'Error' ? ` (${error.name})` : '';
  return new AgentError(fallbackCode, message + kind, { ...location, cause: error });
}

/** True for the errors `fetch` and `AbortSignal` raise on cancellation. */
export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'AbortError' || (error as { name?: unknown }).name === 'TimeoutError')
  );
}
