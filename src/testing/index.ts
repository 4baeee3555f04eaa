/**
 * tea-edge/testing: helpers for agent authors' own tests. Run an agent file against scripted model
 * responses and get its events and final state; build a scripted model that records its calls.
 *
 * @example
 *   import { runAgentWithScript } from 'tea-edge/testing';
 *   const { state, events } = await runAgentWithScript(yaml, { input: { q: 'hi' }, responses: ['hello'] });
 */
export { runAgentWithScript, createScriptedModel } from './scripted.js';
export type { RunAgentWithScriptOptions, ScriptedRunOutcome, ScriptedModel, ScriptedInput } from './scripted.js';
export { createMemoryStores } from '../storage/memory-store.js';
