/**
 * The light engine worker (engine-worker.js), loaded with the page: no script sandbox, so no Lua
 * VM (most of the engine's size). An agent with Lua fails to load with SCRIPT_ENGINE_NOT_LOADED
 * and the page (engine-client.ts) sends it to engine-worker-lua.js.
 */
import { startEngineWorker, type WorkerScope } from './engine-host.js';

startEngineWorker(self as unknown as WorkerScope, {});
