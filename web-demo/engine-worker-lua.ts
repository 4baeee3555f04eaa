/**
 * The full engine worker (engine-worker-lua.js): the engine with the Lua sandbox, loaded for agents
 * that use inline code. Prolog is a separate chunk of this worker, imported the first time an
 * agent uses it (src/prolog/load-prolog.ts).
 */
import { ALL_SCRIPT_SANDBOXES } from '../src/lua/lua-script-sandbox.js';
import { usesProlog, withPrologWhenUsed } from '../src/prolog/load-prolog.js';
import { startEngineWorker, type WorkerScope } from './engine-host.js';

startEngineWorker(self as unknown as WorkerScope, ALL_SCRIPT_SANDBOXES, (scripts, agentYaml) =>
  scripts.prolog === undefined && usesProlog(agentYaml) ? withPrologWhenUsed(scripts, [agentYaml]) : undefined,
);
