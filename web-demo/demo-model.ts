/**
 * The stand-in answer of the scripted demo model for an agent that has no scripted responses of
 * its own: one clearly labelled reply telling the user what to do, instead of a failed run.
 */
import type { LlmProvider, LlmResponse, LlmStreamPart } from '../src/core/model-provider.js';

export const DEMO_REPLY =
  '[scripted demo model] This agent has no scripted answers (settings.llm.scripted), so the demo model can only say this. ' +
  'Pick Ollama, LM Studio, llama.cpp or another server under Model settings to get real answers.';

/** A provider that always answers DEMO_REPLY, streamed word by word. */
export function createDemoModel(): LlmProvider {
  const response = (): LlmResponse => ({
    content: DEMO_REPLY,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    model: 'scripted',
    finish_reason: 'stop',
  });
  return {
    async generate() {
      return response();
    },
    async *stream(): AsyncIterable<LlmStreamPart> {
      for (const word of DEMO_REPLY.split(/(?<= )/)) yield { type: 'delta', content: word };
      yield { type: 'done', response: response() };
    },
  };
}
