/**
 * evaluateWithJudge: the `llm` evaluator (LLM-as-judge). Messages: the judging instructions
 * (src/prompts/judge-system.eta), few-shot `examples` as user/assistant pairs, then the user
 * message. With no `prompt`, the user message is src/prompts/judge.eta over the output (and the
 * generator's prompt, when it had one, as the task); a
 * `prompt` (Jinja over `state`, `output`, `output_to_evaluate`, `iteration`) is used as written
 * when its syntax tree reads the output (`output`, `output_to_evaluate`, `state.reflection_output`;
 * template-references.ts), and otherwise wrapped by judge.eta so the judge always sees it: the
 * plain word "output" in the text does not count. The call goes through `context.callLlm`, so
 * settings.llm defaults apply, overridden by the evaluator's own `model`, `temperature`, ….
 * A failed call (server down, HTTP error, timeout, broken stream) is infrastructure and ends the
 * node; only a reply that does not parse or rejects the output is an invalid verdict.
 */
import type { ActionContext, State } from '../../core/action.js';
import type { ChatMessage } from '../../core/model-provider.js';
import renderJudgeSystem from '../../prompts/judge-system.eta';
import renderJudge from '../../prompts/judge.eta';
import { describeFailure, isControlFlow } from '../control-flow.js';
import type { PreparedEvaluator, Verdict } from '../reflection-types.js';
import { parseJudgeReply } from './parse-judge-reply.js';
import { textOf } from '../../util/text-of.js';
import { cutText } from '../../util/cut-text.js';

const DEFAULT_CRITERIA = 'Evaluate whether this output is valid, correct and complete.';
const MAX_OUTPUT_CHARS = 20_000;
const MAX_TASK_CHARS = 4_000;

export async function evaluateWithJudge(
  evaluator: PreparedEvaluator & { type: 'llm' },
  output: unknown,
  context: ActionContext,
  loopState: State,
  iteration: number,
): Promise<Verdict> {
  const outputText = promptText(output);
  const scope = context.scope({ state: loopState, output, output_to_evaluate: outputText, iteration });
  let userMessage: string;
  try {
    userMessage = judgeMessage(evaluator, scope, outputText, iteration, taskOf(loopState));
  } catch (error) {
    if (isControlFlow(error, context.signal)) throw error;
    return failed(`Judge prompt failed: ${describeFailure(error)}`);
  }
  const messages: ChatMessage[] = [{ role: 'system', content: renderJudgeSystem({}) }];
  const examples = evaluator.examples.render(scope);
  for (const example of Array.isArray(examples) ? examples : []) {
    const pair = example as { input?: unknown; output?: unknown };
    messages.push(
      { role: 'user', content: promptText(pair.input) },
      { role: 'assistant', content: promptText(pair.output) },
    );
  }
  messages.push({ role: 'user', content: userMessage });
  const overrides = evaluator.llm.render(scope) as Record<string, unknown>;
  let content: string;
  try {
    const response = await context.callLlm(
      { ...overrides, messages },
      { label: evaluator.label, purpose: `judge (attempt ${iteration})` },
    );
    content = response.content ?? '';
  } catch (error) {
    if (isControlFlow(error, context.signal)) throw error;
    return failed(`Judge failed: ${describeFailure(error)}`);
  }
  return parseJudgeReply(content);
}

function judgeMessage(
  evaluator: PreparedEvaluator & { type: 'llm' },
  scope: Record<string, unknown>,
  outputText: string,
  iteration: number,
  task: string | undefined,
): string {
  if (evaluator.prompt === undefined)
    return renderJudge({ criteria: DEFAULT_CRITERIA, output: outputText, iteration, task });
  const rendered = String(evaluator.prompt.render(scope) ?? '');
  if (evaluator.promptShowsOutput) return rendered;
  return renderJudge({ criteria: rendered, output: outputText, iteration });
}

/** The generator's last prompt (the task the output answers), shown to the default judge. */
function taskOf(loopState: State): string | undefined {
  const task = loopState.reflection_task;
  if (typeof task !== 'string' || task.trim() === '') return undefined;
  return cutText(task, MAX_TASK_CHARS);
}

/** Text for a prompt: strings as they are, anything else as indented JSON (capped). */
function promptText(value: unknown): string {
  const text = value === undefined ? '' : textOf(value, 2);
  return cutText(text, MAX_OUTPUT_CHARS);
}

function failed(message: string): Verdict {
  return {
    valid: false,
    score: 0,
    errors: [{ message, type: 'evaluator_error' }],
    suggestions: ['Check the judge model configuration and connectivity'],
  };
}
