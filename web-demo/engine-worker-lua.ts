/** The full engine worker (engine-worker-lua.js): the engine with the Lua sandbox, loaded for agents that use Lua. */
import { ALL_SCRIPT_SANDBOXES } from '../src/lua/lua-script-sandbox.js';
import { startEngineWorker, type WorkerScope } from './engine-host.js';

startEngineWorker(self as unknown as WorkerScope, ALL_SCRIPT_SANDBOXES);
