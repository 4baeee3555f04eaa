/** The compiled form of an agent: everything parsed, resolved and checked once, run many times. */
import type { ActionDefinition, CompiledSchema } from '../core/action.js';
import type { ActionRegistry } from '../actions/registry.js';
import type { CompiledScript, ScriptSandboxes } from '../core/script-sandbox.js';
import type { AgentSpec, NodeSpec } from '../spec/agent-spec.js';
import type { CompiledValue, TemplateScope } from '../templates/types.js';

export interface CompiledCondition {
  readonly source: string;
  evaluate(scope: TemplateScope): { value: unknown; truthy: boolean };
}

export type CompiledBody =
  | {
      kind: 'action';
      action: ActionDefinition;
      prepared: boolean;
      params: unknown;
      output?: string | CompiledValue;
      label: string;
    }
  | {
      kind: 'lua';
      lua: CompiledScript;
      label: string /** TEA renders `{{ }}` in a Python block's text before running it. */;
      codeTemplate?: CompiledValue;
    }
  | { kind: 'steps'; steps: CompiledBody[]; label: string }
  | { kind: 'expression'; value: CompiledValue; outputKey: string; label: string }
  | CompiledWhileLoop
  | CompiledDynamicParallel
  | { kind: 'pass'; label: string };

export interface CompiledWhileLoop {
  kind: 'while_loop';
  condition: CompiledCondition;
  maxIterations: number;
  body: CompiledBody[];
  label: string;
}

export interface CompiledDynamicParallel {
  kind: 'dynamic_parallel';
  items: CompiledValue;
  itemVar: string;
  indexVar: string;
  branch: CompiledBody;
  maxConcurrency: number | undefined;
  failFast: boolean;
  output: string | undefined;
  fanIn: string;
  label: string;
}

export type CompiledRoute =
  | { kind: 'goto'; target: string }
  | { kind: 'rules'; rules: Array<{ condition?: CompiledCondition; constant?: boolean; to: string }> }
  /** `expect`: the boolean a `condition:` edge's result must have (its `when:`, default true). */
  | { kind: 'edges'; edges: Array<{ condition?: CompiledCondition; constant?: boolean; expect?: boolean; to: string }> }
  | { kind: 'parallel'; branches: string[]; fanIn: string; failFast: boolean }
  | { kind: 'next'; target: string };

export interface CompiledNode {
  readonly name: string;
  readonly spec: NodeSpec;
  readonly body: CompiledBody;
  readonly route: CompiledRoute;
  readonly interruptBefore: boolean;
  readonly interruptAfter: boolean;
}

export interface CompiledAgent {
  readonly name: string;
  readonly description: string | undefined;
  readonly spec: AgentSpec;
  readonly nodes: ReadonlyMap<string, CompiledNode>;
  readonly entry: string;
  readonly registry: ActionRegistry;
  /** The script sandboxes the agent was compiled with (actions compiled at run time use them too). */
  readonly scripts: ScriptSandboxes;
  readonly inputSchema: CompiledSchema | undefined;
  /** settings.llm with its strings compiled as templates (rendered per run over variables, secrets, env); `scripted` left as written. */
  readonly settingsLlm: CompiledValue;
  /** Things `validate` reports without failing (unknown top-level keys, …). */
  readonly warnings: string[];
}
