/**
 * Actions that can never be tools (of `reason.react` or `llm.tools`), because their parameters
 * choose what else runs, and a tool's parameters are written by the model: a model could then
 * widen what it may call. `reason.react` takes a `tools:` list (with tiers), `llm.tools` a tool
 * list, `reflection.loop` / `reflection.correct` a generator or corrector action (or Lua),
 * `reflection.evaluate` a Lua evaluator or a judge endpoint, and `reflection.review` the id of any
 * stored run to read. A tool call must never widen what the model may call, so these are refused
 * when the agent loads rather than given a nested tool table (src/reasoning/README.md).
 */

/** Canonical action name → why it cannot be a tool. */
const NOT_A_TOOL: ReadonlyMap<string, string> = new Map([
  ['reason.react', 'its `tools:` list would be chosen by the model, with any tier'],
  ['llm.tools', 'its tool list would be chosen by the model'],
  ['reflection.loop', 'its generator and corrector (actions or Lua) would be chosen by the model'],
  ['reflection.correct', 'its corrector (an action or Lua) would be chosen by the model'],
  ['reflection.evaluate', 'its evaluator (Lua code or a judge endpoint) would be chosen by the model'],
  ['reflection.review', 'the stored run it reads would be chosen by the model'],
]);

/** The load error's message when the action named `canonicalName` cannot be a tool, else undefined. */
export function whyNotATool(canonicalName: string): string | undefined {
  const reason = NOT_A_TOOL.get(canonicalName);
  return reason === undefined
    ? undefined
    : `'${canonicalName}' cannot be a tool: ${reason}, so a tool call could widen what the model may call`;
}
