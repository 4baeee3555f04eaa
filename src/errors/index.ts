export { AgentError, ERROR_CODES, toAgentError, isAbortError } from './agent-error.js';
export type { ErrorCode, ErrorLocation, AgentErrorOptions, AgentErrorJson } from './agent-error.js';
