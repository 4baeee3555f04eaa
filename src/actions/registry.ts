/**
 * The action registry: a Map from exact names to ActionDefinitions (never a plain object, so
 * `constructor` or `__proto__` can never resolve). TEA's `actions.<ns>_<name>` spellings resolve to
 * `<ns>.<name>`. Hosts add their own actions with `register` or `createActionRegistry(extra)`
 * (src/builtins.ts, which adds the built-in actions; this module does not know them). A registry
 * without a built-in action names the import that adds it (action-imports.ts).
 */
import { AgentError } from '../core/agent-error.js';
import { editDistance } from '../util/edit-distance.js';
import { teaUnsupportedReason } from './tea-unsupported.js';
import { actionImportOf } from './action-imports.js';
import type { ActionDefinition } from '../core/action.js';

const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export interface ActionRegistry {
  /** The action for a name or TEA alias, or undefined. */
  get(name: string): ActionDefinition | undefined;
  /** The action for a name, or UNKNOWN_ACTION with similar names in the message. */
  resolve(name: string): ActionDefinition;
  /** Adds or replaces an action; the name must match the identifier pattern. */
  register(action: ActionDefinition): void;
  list(): ActionDefinition[];
}

/** A registry of exactly these actions (later ones replace earlier ones of the same name). */
export function createRegistry(initial: readonly ActionDefinition[] = []): ActionRegistry {
  const actions = new Map<string, ActionDefinition>();
  const registry: ActionRegistry = {
    get(name) {
      if (typeof name !== 'string') return undefined;
      return actions.get(name) ?? actions.get(teaAlias(name) ?? '');
    },
    resolve(name) {
      const action = registry.get(name);
      if (action !== undefined) return action;
      const similar = [...actions.keys()]
        .map((candidate) => ({
          candidate,
          distance: editDistance(candidate.toLowerCase(), String(name).toLowerCase()),
        }))
        .filter(
          ({ candidate, distance }) => distance <= 3 || candidate.split('.').pop() === String(name).split(/[._]/).pop(),
        )
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3)
        .map(({ candidate }) => candidate);
      // A built-in action this registry was not given: the host did not import its set.
      const missing = typeof name === 'string' ? actionImportOf(teaAlias(name) ?? name) : undefined;
      if (missing !== undefined) {
        throw new AgentError(
          'UNKNOWN_ACTION',
          `action '${name}' is not in this engine's registry: it comes with \`import { ${missing.name} } from '${missing.module}'\` (createRegistry([...${missing.name}()]) for loadAgent's \`registry\`)`,
          { details: { action: name, similar, import: missing.module, export: missing.name } },
        );
      }
      // A TEA action tea-edge refuses says why and what to write instead (docs/porting-from-tea.md).
      const teaReason = typeof name === 'string' ? teaUnsupportedReason(teaAlias(name) ?? name) : undefined;
      if (teaReason !== undefined) {
        throw new AgentError('UNKNOWN_ACTION', `TEA's action '${name}' is not available in tea-edge: ${teaReason}`, {
          details: { action: name, similar, tea_unsupported: teaReason },
        });
      }
      const hint = similar.length > 0 ? `; did you mean ${similar.join(', ')}?` : '';
      throw new AgentError('UNKNOWN_ACTION', `unknown action '${String(name)}'${hint}`, {
        details: { action: name, similar },
      });
    },
    register(action) {
      if (!NAME_PATTERN.test(action.name)) {
        throw new AgentError('INVALID_PARAMS', `action name '${action.name}' must match ${NAME_PATTERN}`);
      }
      if (typeof action.run !== 'function') {
        throw new AgentError('INVALID_PARAMS', `action '${action.name}' has no run function`);
      }
      actions.set(action.name, action);
    },
    list() {
      return [...actions.values()];
    },
  };
  for (const action of initial) registry.register(action);
  return registry;
}

/** `actions.reflection_loop` → `reflection.loop`; `actions.llm_call` → `llm.call`. */
function teaAlias(name: string): string | undefined {
  const match = /^actions\.([a-z]+)_([a-z_]+)$/.exec(name);
  return match ? `${match[1]}.${match[2]}` : undefined;
}
