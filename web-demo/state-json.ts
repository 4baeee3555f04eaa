/** A state typed by hand (run from here, a pause edited): a JSON object, or why it is not one. */
export function parseStateJson(text: string): { state: Record<string, unknown> } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (problem) {
    return { error: `Not valid JSON: ${(problem as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { error: 'The state must be a JSON object.' };
  return { state: parsed as Record<string, unknown> };
}
