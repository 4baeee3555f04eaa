/**
 * `tea-edge/actions/core`: the actions that need no model: schema checks, JSON, state shaping,
 * `return`, the retry loop, sub-agents (`agent.*`) and the host's files (`file.*`).
 */
import { agentActions } from '../actions/agent-actions.js';
import { coreActions as checkActions } from '../actions/core-actions.js';
import { fileActions } from '../actions/file-actions.js';
import { retryLoop } from '../actions/retry-loop.js';
import { stateActions } from '../actions/state-actions.js';
import type { ActionDefinition } from '../core/action.js';

/** validate.schema, json.parse, tools.list, state.set, return, core.return, retry.loop, agent.*, file.*; fresh definitions on every call. */
export function coreActions(): ActionDefinition[] {
  return [...checkActions(), ...stateActions(), retryLoop as ActionDefinition, ...agentActions(), ...fileActions()];
}
