/**
 * AgentError lives in the contracts layer (src/core/agent-error.ts: the error type every seam
 * throws). This module re-exports it for the code that imported it from here.
 */
export { AgentError, ERROR_CODES, describeLocation, formatAgentError, isAbortError, toAgentError } from '../core/agent-error.js';
export type { AgentErrorJson, AgentErrorOptions, ErrorCode, ErrorLocation } from '../core/agent-error.js';
