/** isInfrastructureFailure: which failures end a node (docs/execution-model.md, "Two kinds of failure"). */
import { describe, expect, it } from 'vitest';
import { AgentError, type ErrorCode } from '../../src/core/agent-error.js';
import { isInfrastructureFailure } from '../../src/llm/llm-errors.js';

const error = (code: ErrorCode, details: Record<string, unknown> = {}) => new AgentError(code, 'x', { details });

describe('isInfrastructureFailure', () => {
  it.each([
    ['LLM_UNAVAILABLE'],
    ['LLM_TIMEOUT'],
    ['LLM_HTTP_401'],
    ['LLM_HTTP_404'],
    ['LLM_HTTP_429'],
    ['LLM_HTTP_500'],
    ['LLM_BAD_RESPONSE'],
    ['STORAGE_ERROR'],
    ['CANCELLED'],
    ['BUDGET_EXCEEDED'],
  ] as const)('%s is infrastructure', (code) => {
    expect(isInfrastructureFailure(error(code))).toBe(true);
  });

  it('a cut stream and a replay mismatch are infrastructure', () => {
    expect(isInfrastructureFailure(error('LLM_BAD_RESPONSE', { cut: true, half_tool_call: true }))).toBe(true);
    expect(isInfrastructureFailure(error('LLM_BAD_RESPONSE', { replay: true, mismatch: { call: 1 } }))).toBe(true);
  });

  it.each([
    ['SCHEMA_INVALID'],
    ['REFLECTION_FAILED'],
    ['LUA_ERROR'],
    ['ACTION_FAILED'],
    ['TEMPLATE_ERROR'],
    ['INVALID_PARAMS'],
    ['FORBIDDEN'],
  ] as const)('%s is not', (code) => {
    expect(isInfrastructureFailure(error(code))).toBe(false);
  });

  it('a tool call the model wrote badly is content; non-AgentErrors are not classified', () => {
    expect(isInfrastructureFailure(error('LLM_BAD_RESPONSE', { half_tool_call: true, model_output: true }))).toBe(
      false,
    );
    expect(isInfrastructureFailure(new Error('LLM_TIMEOUT'))).toBe(false);
    expect(isInfrastructureFailure({ code: 'LLM_TIMEOUT' })).toBe(false);
  });
});
