/**
 * AgentSettings (src/core/agent-settings.ts) must describe the schema's closed `settings` shape:
 * a key the schema accepts but the type lacks would be read untyped again, and a key the type
 * has but the schema refuses could never be set.
 */
import { describe, expect, it } from 'vitest';
import type { AgentSettings } from '../core/agent-settings.js';
import agentSchema from './agent-schema.json';

// Required<Record<keyof …>>: the compiler fails when a key of the type is missing here or extra.
const TYPED_KEYS: Required<Record<keyof AgentSettings, true>> = {
  llm: true,
  limits: true,
  parallel: true,
  http: true,
  agents: true,
  web_search: true,
  mcp: true,
  trace: true,
  reflection: true,
  lua: true,
  env: true,
};

describe('AgentSettings', () => {
  it('has exactly the keys of the schema settings block', () => {
    const schemaKeys = Object.keys(agentSchema.definitions.settings.properties).sort();
    expect(Object.keys(TYPED_KEYS).sort()).toEqual(schemaKeys);
  });
  it('matches each sub-block the schema closes, key for key', () => {
    const properties = agentSchema.definitions.settings.properties as Record<
      string,
      { properties?: Record<string, unknown> }
    >;
    const typed: Record<string, Required<Record<string, true>>> = {
      llm: LLM_KEYS,
      limits: LIMITS_KEYS,
      reflection: REFLECTION_KEYS,
    };
    for (const [block, keys] of Object.entries(typed)) {
      expect(Object.keys(keys).sort(), `settings.${block}`).toEqual(
        Object.keys(properties[block]?.properties ?? {}).sort(),
      );
    }
  });
});

const LLM_KEYS: Required<Record<keyof NonNullable<AgentSettings['llm']>, true>> = {
  provider: true,
  model: true,
  api_base: true,
  base_url: true,
  api_key: true,
  temperature: true,
  max_tokens: true,
  timeout: true,
  first_token_timeout: true,
  max_retries: true,
  scripted: true,
  top_p: true,
  seed: true,
  stop: true,
  presence_penalty: true,
  frequency_penalty: true,
  response_format: true,
};
const LIMITS_KEYS: Required<Record<keyof NonNullable<AgentSettings['limits']>, true>> = {
  max_steps: true,
  max_llm_calls: true,
  max_tokens: true,
  max_duration_ms: true,
  max_write_bytes: true,
};
const REFLECTION_KEYS: Required<Record<keyof NonNullable<AgentSettings['reflection']>, true>> = {
  min_success_rate: true,
  max_execution_time_multiplier: true,
  require_all_tasks_complete: true,
  check_output_quality: true,
  enable_llm_reflection: true,
  learn_from_episode: true,
};
