/**
 * The tools a `reason.react` node may call, fixed at agent load from its `tools:` list (docs/spec.md#63-reasonreact,
 * security catalogue AG-01/AG-02). Lookup is an exact `Map.get` on the name the model wrote:
 * `constructor`, `__proto__`, `toString`, names differing only in case or whitespace, path-like
 * names and anything outside the identifier pattern are simply absent, so nothing runs.
 */
import type { ActionCompiler, CompiledSchema, JsonSchema } from '../../core/action.js';
import { AgentError } from '../../core/agent-error.js';
import { whyNotATool } from '../../actions/not-a-tool.js';
import { isPlainObject } from '../../util/plain-object.js';
import { checkMcpToolName, MCP_TOOL_PREFIX } from '../../mcp/mcp-tool-name.js';

/** docs/spec.md#11-top-level-keys identifier pattern; `..` is refused on top (path-like, Rust TEA's rule). */
const TOOL_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** Roles in increasing order of authority; a tool's `requires_role` needs that rank or higher. */
export const ROLE_ORDER = ['viewer', 'user', 'operator', 'admin'] as const;

/** The role assumed when the host gives none (seed 003's caller is a user). */
export const DEFAULT_ROLE = 'user';

/** Autonomy tiers: 1 runs on its own (`autonomous: true`), 2 runs, 3 waits for approval. */
export type ToolTier = 1 | 2 | 3;

export interface ReactTool {
  name: string;
  /** The name sent to OpenAI-style tool calling (`^[a-zA-Z0-9_-]{1,64}$`: dots become `_`). */
  wireName: string;
  description: string;
  parameters: JsonSchema;
  schema: CompiledSchema | undefined;
  tier: ToolTier;
  requiresRole: string | undefined;
  /**
   * Set for a tool from an MCP server (`mcp.<server>.<tool>`, docs/mcp.md): its description and
   * parameters are filled in when the run lists the server (react's `withMcpTools`).
   */
  mcp?: { server: string; tool: string };
  /** The MCP server's own description of the tool (capped), shown when its call waits for approval. */
  serverDescription?: string;
}

export interface ToolTable {
  readonly tools: ReactTool[];
  readonly byName: Map<string, ReactTool>;
  readonly byWireName: Map<string, ReactTool>;
}

const TOOL_ENTRY_KEYS = new Set(['name', 'tier', 'requires_role', 'description']);

/** True when `name` may name a tool at all (pattern, no `..`). */
export function isValidToolName(name: unknown): name is string {
  return typeof name === 'string' && TOOL_NAME_PATTERN.test(name) && !name.includes('..');
}

/**
 * Builds the table from a node's `tools:` list at load. A listed tool that is not registered or
 * whose name is invalid is `UNKNOWN_TOOL`; a bad `tier`, `requires_role` or duplicate is
 * `INVALID_PARAMS`, and so is an action that can never be a tool (src/actions/not-a-tool.ts: its
 * parameters, written by the model, would choose what else runs). Default tier: 3 for actions
 * declaring side effects (AG-15), else 1.
 */
export function buildToolTable(list: unknown, compiler: ActionCompiler): ToolTable {
  if (list === undefined || list === null) return { tools: [], byName: new Map(), byWireName: new Map() };
  if (!Array.isArray(list))
    throw compiler.error('tools must be a list of action names or {name, tier, requires_role, description}', 'tools');
  const tools: ReactTool[] = [];
  const byName = new Map<string, ReactTool>();
  const byWireName = new Map<string, ReactTool>();
  const folded = new Set<string>();
  list.forEach((entry, index) => {
    const field = `tools[${index}]`;
    const spec = typeof entry === 'string' ? { name: entry } : entry;
    if (!isPlainObject(spec))
      throw compiler.error('a tool is an action name or {name, tier, requires_role, description}', field);
    for (const key of Object.keys(spec))
      if (!TOOL_ENTRY_KEYS.has(key)) throw compiler.error(`unknown key '${key}' in a tool entry`, field);
    const { name, tier, requires_role: requiresRole, description } = spec;
    if (!isValidToolName(name)) {
      throw compiler.error(
        `invalid tool name ${JSON.stringify(name)}: tool names match ^[A-Za-z][A-Za-z0-9_.-]{0,63}$ without '..'`,
        field,
        'UNKNOWN_TOOL',
      );
    }
    if (name === 'final_answer') return; // always available
    if (name.startsWith(MCP_TOOL_PREFIX)) {
      if (folded.has(name.toLowerCase()))
        throw compiler.error(`tool '${name}' is listed twice (names are compared ignoring case)`, field);
      folded.add(name.toLowerCase());
      const tool = mcpTool(name, spec, compiler, field, byWireName);
      tools.push(tool);
      byName.set(name, tool);
      byWireName.set(tool.wireName, tool);
      return;
    }
    let definition;
    try {
      definition = compiler.action(name, field);
    } catch (error) {
      const similar =
        AgentError.isInstance(error) && Array.isArray(error.details['similar'])
          ? (error.details['similar'] as unknown[]).map(String)
          : [];
      const hint = similar.length > 0 ? `; did you mean ${similar.join(', ')}?` : '';
      throw compiler.error(`tool '${name}' is not a registered action${hint}`, field, 'UNKNOWN_TOOL');
    }
    const refusal = whyNotATool(definition.name);
    if (refusal !== undefined) {
      throw compiler.error(refusal, field, 'INVALID_PARAMS');
    }
    if (folded.has(name.toLowerCase()))
      throw compiler.error(`tool '${name}' is listed twice (names are compared ignoring case)`, field);
    folded.add(name.toLowerCase());
    checkEntryKeys(tier, requiresRole, description, compiler, field);
    const parameters = definition.parameters ?? { type: 'object' };
    const tool: ReactTool = {
      name,
      wireName: uniqueWireName(name, byWireName),
      description: (description as string | undefined) ?? definition.description ?? `Run the ${name} action`,
      parameters,
      schema:
        definition.parameters !== undefined ? compiler.schema(definition.parameters, `${field}.parameters`) : undefined,
      tier: (tier as ToolTier | undefined) ?? (definition.sideEffects === true ? 3 : 1),
      requiresRole: requiresRole as string | undefined,
    };
    tools.push(tool);
    byName.set(name, tool);
    byWireName.set(tool.wireName, tool);
  });
  return { tools, byName, byWireName };
}

function checkEntryKeys(
  tier: unknown,
  requiresRole: unknown,
  description: unknown,
  compiler: ActionCompiler,
  field: string,
): void {
  if (tier !== undefined && tier !== 1 && tier !== 2 && tier !== 3)
    throw compiler.error('tier must be 1, 2 or 3', `${field}.tier`);
  if (requiresRole !== undefined && !(ROLE_ORDER as readonly unknown[]).includes(requiresRole)) {
    throw compiler.error(`requires_role must be one of ${ROLE_ORDER.join(', ')}`, `${field}.requires_role`);
  }
  if (description !== undefined && typeof description !== 'string')
    throw compiler.error('description must be a string', `${field}.description`);
}

/**
 * An `mcp.<server>.<tool>` entry: the server must be declared in settings.mcp and the tool on its
 * allow-list (UNKNOWN_TOOL otherwise). The server is not contacted at load. Default tier 3: a
 * server's own claims (readOnlyHint) are untrusted, so only the agent author can lower it.
 */
function mcpTool(
  name: string,
  spec: Record<string, unknown>,
  compiler: ActionCompiler,
  field: string,
  byWireName: Map<string, ReactTool>,
): ReactTool {
  const { tier, requires_role: requiresRole, description } = spec;
  const checked = checkMcpToolName(name, compiler.agentSettings);
  if ('error' in checked) throw compiler.error(checked.error, field, 'UNKNOWN_TOOL');
  checkEntryKeys(tier, requiresRole, description, compiler, field);
  return {
    name,
    wireName: uniqueWireName(name, byWireName),
    description: (description as string | undefined) ?? '',
    parameters: { type: 'object' },
    schema: undefined,
    tier: (tier as ToolTier | undefined) ?? 3,
    requiresRole: requiresRole as string | undefined,
    mcp: checked,
  };
}

function uniqueWireName(name: string, taken: Map<string, ReactTool>): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
  let candidate = base === 'final_answer' ? `${base}_tool` : base;
  for (let suffix = 2; taken.has(candidate); suffix++) candidate = `${base}_${suffix}`;
  return candidate;
}

/** Rank of a role; an unknown role ranks below every known one. */
export function roleRank(role: string | undefined): number {
  return (ROLE_ORDER as readonly string[]).indexOf(role ?? DEFAULT_ROLE);
}

/** True when the caller's role reaches the tool's `requires_role`. */
export function roleAllows(callerRole: string | undefined, requiredRole: string | undefined): boolean {
  if (requiredRole === undefined) return true;
  return roleRank(callerRole) >= roleRank(requiredRole) && roleRank(callerRole) >= 0;
}

/**
 * The least role whose approval of a tier-3 call counts: the role of the caller that ran into it,
 * or the tool's `requires_role` when that is higher. A viewer cannot approve an admin's call.
 */
export function approverRole(requesterRole: string | undefined, requiredRole: string | undefined): string {
  const requester = roleRank(requesterRole) >= 0 ? (requesterRole ?? DEFAULT_ROLE) : DEFAULT_ROLE;
  return requiredRole !== undefined && roleRank(requiredRole) > roleRank(requester) ? requiredRole : requester;
}
