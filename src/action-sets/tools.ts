/** `tea-edge/actions/tools`: the tool actions an agent (or ReAct) calls: memory, math, JSON queries, HTTP and the web. */
import type { ActionDefinition } from '../core/action.js';
import { builtinTools } from '../tools/builtin-tools.js';
import { webTools } from '../tools/web-tools.js';

/** memory.store, memory.retrieve, math.calculate, json.query, http.get, web.scrape, web.search; fresh definitions on every call. */
export function toolActions(): ActionDefinition[] {
  return [...builtinTools(), ...webTools()];
}
