/** Entry for the size-report bundle of the engine (browser/worker): everything a host needs to run agents. */
export { loadAgent, runAgent, resumeAgent, createMemoryStores, createActionRegistry } from './index.js';
