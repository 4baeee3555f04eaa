/**
 * tea-edge/testing: helpers for tests of agents, actions and the seams a host plugs in.
 *
 * - Run an agent file against scripted model responses and get its events and final state; build
 *   a scripted model that records its calls.
 * - Run one action with `createTestActionContext()`: scripted replies, recorded calls and events.
 * - Prove a store, model provider, script sandbox or file root of your own with the same
 *   conformance suites the built-in ones run (they register vitest tests, so call them at the top
 *   level of a test file; `vitest` is a peer dependency of this entry).
 *
 * @example
 *   import { runAgentWithScript } from 'tea-edge/testing';
 *   const { state, events } = await runAgentWithScript(yaml, { input: { q: 'hi' }, responses: ['hello'] });
 *
 * @example
 *   // my-store.test.ts
 *   import { describeTraceStoreConformance } from 'tea-edge/testing';
 *   describeTraceStoreConformance('my store', async () => ({ traceStore: myStore(), checkpointStore: myStore() }));
 */

// Agents against a scripted model.
export { runAgentWithScript, createScriptedModel } from './scripted.js';
export type { RunAgentWithScriptOptions, ScriptedRunOutcome, ScriptedModel, ScriptedInput } from './scripted.js';

// One action with a test context.
export { createTestActionContext } from './test-action-context.js';
export type { TestActionContext, TestActionContextOptions, TestEvent, TestModelReply } from './test-action-context.js';

// Reference stores held in memory.
export { createMemoryStores } from '../storage/memory-store.js';
export { createMemoryFileStore } from './memory-file-store.js';

// Conformance suites, one per seam.
export { describeTraceStoreConformance } from './storage-conformance.js';
export type { StorePair, ConformanceFeature, ConformanceOptions } from './storage-conformance.js';
export { describeModelProviderConformance } from './model-provider-conformance.js';
export type {
  ProviderFactory,
  ProviderUnderTest,
  Scenario,
  ScenarioCall,
  ConformanceReply,
  ConformanceFault,
  ConformanceOutcome,
  ModelProviderFeature,
  ModelProviderConformanceOptions,
} from './model-provider-conformance.js';
export { describeScriptSandboxConformance } from './script-sandbox-conformance.js';
export type { ScriptSandboxFixture } from './script-sandbox-conformance.js';
export { describeFileStoreConformance } from './file-store-conformance.js';
export type { FileStoreUnderTest } from './file-store-conformance.js';
