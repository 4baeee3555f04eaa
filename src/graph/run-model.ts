/**
 * The run's model settings and secrets, worked out once when a run is set up: `settings.llm` is
 * rendered (its strings are templates, as in TEA, with no state: `{{ secrets.key }}` works), and
 * the secret values every output of the run must not show are collected (the host's `secrets`,
 * the rendered `api_key`, the host's key override; 4 characters or more).
 */
import { toAgentError, type AgentError } from '../core/agent-error.js';
import type { TemplateScope } from '../templates/types.js';
import type { CompiledAgent } from './compiled-agent.js';
import type { RunOptions } from './run-types.js';

export interface RunModelSetup {
  settingsLlm: Record<string, unknown>;
  secrets: string[];
  /** A settings.llm template that failed; the run fails with it when it starts (runAgent never throws). */
  error: AgentError | undefined;
}

export function setUpModel(agent: CompiledAgent, options: RunOptions, scope: TemplateScope): RunModelSetup {
  let settingsLlm: Record<string, unknown> = {};
  let error: AgentError | undefined;
  try {
    settingsLlm = agent.settingsLlm.render(scope) as Record<string, unknown>;
  } catch (caught) {
    error = toAgentError(caught, 'TEMPLATE_ERROR', { field: 'settings.llm' });
  }
  const secrets = [
    ...Object.values(options.secrets ?? {}),
    typeof settingsLlm.api_key === 'string' ? settingsLlm.api_key : '',
    options.llm?.overrides?.api_key ?? '',
  ].filter((value) => typeof value === 'string' && value.length >= 4);
  return { settingsLlm, secrets, error };
}
