export {
  AgentError,
  ERROR_CODES,
  describeLocation,
  formatAgentError,
  toAgentError,
  isAbortError,
} from '../core/agent-error.js';
export type { ErrorCode, ErrorLocation, AgentErrorOptions, AgentErrorJson } from '../core/agent-error.js';
export { formatProblem, loadFailure, MAX_LOAD_PROBLEMS, problemOf, problemsOf } from './load-problems.js';
export type { LoadProblem } from './load-problems.js';
