/**
 * What each built-in action returns, as JSON Schema (for an object, each key it may have, with a
 * type and a description). Documentation only: docs/actions.md is rendered from it
 * (tests/support/action-reference.ts) and a test runs actions to check they return no key it does
 * not name. Nothing at run time imports it, so no bundle carries these texts.
 */
import type { JsonSchema } from '../core/json-schema.js';

/** What every llm.* call returns (src/llm/llm-result.ts). */
const LLM_RESULT_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  content: { type: 'string', description: "the model's answer" },
  usage: { type: 'object', description: 'prompt_tokens, completion_tokens, total_tokens' },
  model: { type: 'string', description: 'the model that answered' },
  finish_reason: { type: 'string', description: 'why the model stopped (stop, length, tool_calls…)' },
  tool_calls: {
    type: 'array',
    description: "the model's tool calls, when it made any (always there when tools were offered)",
  },
  reasoning: { type: 'string', description: "the model's thinking, when the server returns it" },
};

/** What every reason.* action returns besides its own keys (src/reasoning/action-support.ts). */
const REASONING_RESULT_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  reasoning_trace: { type: 'array', description: 'the steps taken, for the trace and the studio' },
  reasoning_answer: { description: 'the answer, under the name every reason.* action shares' },
  model: { type: 'string', description: 'the model used' },
  success: { type: 'boolean', description: 'false when the reasoning failed (then `error` says why)' },
  error: { type: 'string', description: 'why the reasoning failed' },
};

/** A DSPy alias returns its native action's result, marked as TEA marks its fallback. */
function withDspyModule(result: JsonSchema): JsonSchema {
  const properties = (result['properties'] ?? {}) as Record<string, JsonSchema>;
  return {
    ...result,
    properties: {
      ...properties,
      dspy_module: { type: 'string', description: '"native_fallback": no DSPy module ran' },
    },
  };
}

const NATIVE_RESULTS: Readonly<Record<string, JsonSchema>> = {
  'validate.schema': {
    type: 'object',
    properties: {
      valid: { type: 'boolean', description: 'the verdict' },
      errors: { type: 'array', description: 'each error: message, path, keyword' },
    },
  },
  'json.parse': {
    type: 'object',
    properties: {
      data: { description: 'the parsed value (null when `strict: false` and the text is not JSON)' },
      error: { type: 'string', description: 'why the text is not JSON (`strict: false` only)' },
    },
  },
  'tools.list': {
    type: 'object',
    properties: {
      tools: { type: 'array', description: 'name, description, parameters of each action' },
      count: { type: 'integer', description: 'how many' },
    },
  },
  'state.set': { description: 'The `with:` keys as given (rendered), each written into the state.' },
  return: {
    description:
      '`value` as given (an object is merged into the state, anything else is stored as `result` or under `output`), or the `with:` keys',
  },
  'core.return': {
    description:
      '`value` as given (an object is merged into the state, anything else is stored as `result` or under `output`), or the `with:` keys',
  },
  'retry.loop': {
    type: 'object',
    properties: {
      _retry_count: { type: 'integer', description: 'corrections run' },
      _retry_errors: { type: 'array', description: 'the validation errors seen' },
      _retry_result: { type: 'object', description: 'the last validation result {valid, errors}' },
      _retry_exhausted: { type: 'boolean', description: 'max_retries reached while invalid' },
      valid: {
        type: 'boolean',
        description: "the last validation's verdict (its other keys are spread in too, over the corrected state)",
      },
    },
  },
  'agent.dispatch': {
    type: 'object',
    properties: {
      content: { type: 'string', description: "the agent's answer" },
      response: { type: 'string', description: "the same answer (TEA's name)" },
      agent: { type: 'string', description: 'the persona or agent file that answered' },
      file: { type: 'string', description: "a sub-run's agent file" },
      state: { type: 'object', description: "a sub-run's final state" },
      usage: { type: 'object', description: "a persona's token usage" },
      model: { type: 'string', description: "a persona's model" },
      attempts: { type: 'integer', description: 'attempts made' },
      success: { type: 'boolean', description: 'true (a failure fails the node)' },
    },
  },
  'agent.parallel': {
    type: 'object',
    properties: {
      success: { type: 'boolean', description: 'true (a failure fails the node)' },
      agents_called: { type: 'array', description: 'the agents asked, in order' },
      raw_results: { type: 'array', description: "each agent's answer (collect, vote, first)" },
      rounds: { type: 'integer', description: 'rounds asked (consensus)' },
      consensus_reached: { type: 'boolean', description: 'whether enough agents agreed (consensus)' },
    },
  },
  'agent.sequential': {
    type: 'object',
    properties: {
      result: { type: 'string', description: "the last agent's answer (also under `output_key`)" },
      chain: { type: 'array', description: "each step: agent, response, success (and a sub-run's file and state)" },
      agents_called: { type: 'array', description: 'the agents asked, in order' },
      success: { type: 'boolean', description: 'true (a failure fails the node)' },
    },
  },
  'file.read': {
    type: 'object',
    properties: {
      content: { type: 'string', description: "the file's text" },
      path: { type: 'string', description: 'the rooted path read' },
      bytes: { type: 'integer', description: 'bytes read' },
      success: { type: 'boolean', description: 'true (a failure fails the node)' },
    },
  },
  'file.write': {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'the rooted path written' },
      bytes: { type: 'integer', description: 'bytes written' },
      success: { type: 'boolean', description: 'true (a failure fails the node)' },
    },
  },
  'llm.call': {
    type: 'object',
    properties: {
      ...LLM_RESULT_PROPERTIES,
    },
  },
  'llm.stream': {
    type: 'object',
    properties: {
      ...LLM_RESULT_PROPERTIES,
    },
  },
  'llm.tools': {
    type: 'object',
    properties: {
      content: { type: 'string', description: "the model's answer" },
      usage: { type: 'object', description: 'prompt_tokens, completion_tokens, total_tokens' },
      model: { type: 'string', description: 'the model that answered' },
      finish_reason: { type: 'string', description: 'why the model stopped (stop, length, tool_calls…)' },
      tool_calls: { type: 'array', description: 'each tool call run: id, name, arguments' },
      reasoning: { type: 'string', description: "the model's thinking, when the server returns it" },
      tool_results: { type: 'array', description: "each call's result: tool_call_id, name, result" },
      rounds: { type: 'integer', description: 'model calls made' },
      warning: { type: 'string', description: 'set when max_tool_rounds ran out' },
    },
  },
  'llm.chat': {
    type: 'object',
    properties: {
      ...LLM_RESULT_PROPERTIES,
    },
  },
  'llm.embed': {
    type: 'object',
    properties: {
      embedding: { type: 'array', description: "the first text's vector" },
      embeddings: { type: 'array', description: "every text's vector (when `text` is a list)" },
      dimensions: { type: 'integer', description: 'the vector length' },
      model: { type: 'string', description: 'the embedding model' },
      tokens_used: { type: 'integer', description: 'prompt tokens counted by the server' },
    },
  },
  'memory.store': {
    type: 'object',
    properties: {
      stored: { type: 'boolean', description: 'true' },
    },
  },
  'memory.retrieve': {
    type: 'object',
    properties: {
      value: { description: 'the stored value, or null when absent' },
    },
  },
  'math.calculate': {
    type: 'object',
    properties: {
      result: { type: 'number', description: 'the value of the expression' },
    },
  },
  'json.query': {
    type: 'object',
    properties: {
      found: { type: 'boolean', description: 'whether the path exists' },
      result: { description: 'the value at the path, or null' },
    },
  },
  'http.get': {
    type: 'object',
    properties: {
      status: { type: 'integer', description: 'the HTTP status' },
      body: { type: 'string', description: 'the body as text, cut at the byte cap' },
      content_type: { type: 'string', description: 'the Content-Type header, or null' },
      truncated: { type: 'boolean', description: 'whether the body was cut' },
      url: { type: 'string', description: 'the URL fetched (after allowed redirects)' },
    },
  },
  'web.scrape': {
    type: 'object',
    properties: {
      success: { type: 'boolean', description: 'whether the page was read' },
      url: { type: 'string', description: "the page's URL" },
      status: { type: 'integer', description: 'the HTTP status' },
      markdown: { type: 'string', description: 'the readable content as Markdown (format markdown)' },
      text: { type: 'string', description: 'the readable content as text (format text)' },
      links: { type: 'array', description: "the page's links (format links)" },
      metadata: { type: 'object', description: 'title, description, content_type, truncated' },
      error: { type: 'string', description: 'why not (success false)' },
    },
  },
  'web.search': {
    type: 'object',
    properties: {
      success: { type: 'boolean', description: 'whether the search service answered' },
      query: { type: 'string', description: 'the query sent' },
      results: { type: 'array', description: 'title, url, content of each result' },
      total_results: { type: 'integer', description: 'as the service reports it' },
      answer: { type: 'string', description: "the service's direct answer, or null" },
      error: { type: 'string', description: 'why not (success false)' },
    },
  },
  'reason.cot': {
    type: 'object',
    properties: {
      ...REASONING_RESULT_PROPERTIES,
      thinking: { type: 'string', description: 'the reasoning' },
      answer: { description: 'the answer' },
      thinking_format: { type: 'string', description: 'the thinking format used' },
      reasoning_thinking: { type: 'string', description: 'the reasoning, under the name every reason.* action shares' },
    },
  },
  'reason.react': {
    type: 'object',
    properties: {
      ...REASONING_RESULT_PROPERTIES,
      final_answer: { description: 'the answer, when the loop reached one' },
      steps: { type: 'array', description: 'thought, action, observation of each step' },
      total_steps: { type: 'integer', description: 'steps taken' },
      tool_calls: { type: 'integer', description: 'tools called' },
      stop_reason: { type: 'string', description: 'final_answer, max_steps, max_tool_calls…' },
      react_steps: { type: 'array', description: "the steps (TEA's name)" },
      tool_mode: { type: 'string', description: 'how tools were called (json or native)' },
      warning: { type: 'string', description: 'set when max_steps or max_tool_calls ended the loop' },
      forced_final_answer: {
        type: 'boolean',
        description: 'the answer was asked for after the limit (on_limit: force_answer)',
      },
    },
  },
  'reason.self_correct': {
    type: 'object',
    properties: {
      ...REASONING_RESULT_PROPERTIES,
      output: { description: 'the last improved output' },
      improvement_history: { type: 'array', description: "each round's output and critique" },
      rounds_completed: { type: 'integer', description: 'rounds run' },
      rounds_requested: { type: 'integer', description: 'rounds asked for' },
      skipped_rounds: { type: 'integer', description: 'rounds whose critique or improvement failed' },
      generator_model: { type: 'string', description: 'the generating model' },
      critic_model: { type: 'string', description: 'the critiquing model' },
    },
  },
  'reason.decompose': {
    type: 'object',
    properties: {
      ...REASONING_RESULT_PROPERTIES,
      sub_problems: { type: 'array', description: 'the sub-problems, with dependencies' },
      sub_answers: { type: 'array', description: "each sub-problem's answer" },
      final_answer: { description: 'the synthesised answer' },
      synthesis_reasoning: { type: 'string', description: 'how the answers were combined' },
      confidence: { type: 'number', description: "the model's confidence" },
      analysis: { type: 'string', description: "the decomposition's analysis" },
      depth_used: { type: 'integer', description: 'the deepest level decomposed' },
    },
  },
  'reflection.loop': {
    type: 'object',
    properties: {
      output: {
        description: "the returned attempt's output (its keys are also spread into the result, or it is `result`)",
      },
      valid: { type: 'boolean', description: 'whether it passed the evaluator' },
      success: { type: 'boolean', description: '= valid' },
      exhausted: { type: 'boolean', description: 'max_iterations ran out without a valid output' },
      iterations: { type: 'integer', description: 'attempts made' },
      stop_reason: { type: 'string', description: 'valid, max_iterations or budget' },
      reflection_iteration: { type: 'integer', description: 'the last iteration' },
      reflection_output: { description: 'the last output' },
      reflection_errors: { type: 'array', description: "the last evaluation's errors" },
      reflection_history: { type: 'array', description: 'every attempt' },
      reflection_best: { description: 'the best output' },
      reflection_best_score: { type: 'number', description: 'its score (-1 when none)' },
      reflection_feedback: { type: 'string', description: 'the last feedback, or null' },
    },
  },
  'reflection.evaluate': {
    type: 'object',
    properties: {
      valid: { type: 'boolean', description: 'the verdict' },
      score: { type: 'number', description: '0 to 1' },
      errors: { type: 'array', description: 'what is wrong: message, type, path' },
      suggestions: { type: 'array', description: 'how to fix it' },
      feedback: { type: 'string', description: "an LLM judge's feedback" },
      success: { type: 'boolean', description: 'whether the evaluator ran' },
    },
  },
  'reflection.correct': {
    type: 'object',
    properties: {
      corrected_output: { description: "the corrector's output" },
      success: { type: 'boolean', description: 'whether the corrector gave a usable output' },
      error: { type: 'string', description: 'why not' },
    },
  },
  'reflection.review': {
    type: 'object',
    properties: {
      run_id: { type: 'string', description: 'the run reviewed' },
      agent: { type: 'string', description: 'its agent' },
      status: { type: 'string', description: 'its status' },
      success: { type: 'boolean', description: 'whether the run met the criteria' },
      should_replan: { type: 'boolean', description: 'whether the plan should change' },
      issues: { type: 'array', description: 'what went wrong' },
      suggestions: { type: 'array', description: 'what to change' },
      plan: { type: 'object', description: 'the replanning advice' },
      tasks: { type: 'array', description: 'per-node evaluation' },
      failure_patterns: { type: 'array', description: 'failure patterns across runs' },
      llm_suggestions: { type: 'array', description: "the model's suggestions, when asked" },
      criteria: { type: 'object', description: 'the criteria applied' },
      insights: { type: 'array', description: 'insights stored for later runs' },
      learned: { type: 'array', description: 'what this review learned' },
      compared_runs: { type: 'integer', description: 'earlier runs compared' },
      reviewed_at: { type: 'string', description: 'when (ISO time)' },
    },
  },
  'prolog.query': {
    type: 'object',
    properties: {
      success: { type: 'boolean', description: 'whether the query has a solution' },
      bindings: { type: 'array', description: "the first solution's variable bindings (empty when none)" },
      returns: { type: 'object', description: 'values the code gave with return/2' },
    },
  },
};

export const ACTION_RESULTS: Readonly<Record<string, JsonSchema>> = {
  ...NATIVE_RESULTS,
  'reason.dspy.cot': withDspyModule(NATIVE_RESULTS['reason.cot']!),
  'reason.dspy.react': withDspyModule(NATIVE_RESULTS['reason.react']!),
};
