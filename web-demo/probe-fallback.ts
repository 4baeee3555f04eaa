/**
 * A minimal endpoint check used until the model engineer's `probeEndpoint` (src/llm/probe.ts)
 * is in the build: lists `/v1/models` and tells a network failure (most often CORS in a
 * browser) from an HTTP error. Same result shape as `probeEndpoint`.
 */
export interface ProbeInput {
  api_base: string;
  api_key?: string;
  model?: string;
}

export async function probeEndpoint(input: ProbeInput): Promise<{ models: string[]; cors_error?: boolean; advice: string[] }> {
  const headers: Record<string, string> = {};
  if (input.api_key) headers.authorization = `Bearer ${input.api_key}`;
  let response: Response;
  try {
    response = await fetch(`${input.api_base.replace(/\/+$/, '')}/models`, { headers, signal: AbortSignal.timeout(4000) });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new Error('no answer within 4 s');
    return { models: [], cors_error: true, advice: ['The request failed before any answer: the server is not running, or it does not allow this page (CORS).'] };
  }
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${input.api_base}/models`);
  const body = (await response.json()) as { data?: { id?: unknown }[] };
  const models = Array.isArray(body.data) ? body.data.map((entry) => entry.id).filter((id): id is string => typeof id === 'string') : [];
  return { models, advice: [] };
}
