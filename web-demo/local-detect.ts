/**
 * The quick start-up look for a model server on this machine: asks each local preset for
 * `/v1/models` at once, with a short timeout, and returns the first that answers.
 */
import { PRESETS, type ModelSettings } from './model-settings.js';

export interface DetectedServer {
  settings: ModelSettings;
  label: string;
}

/** The first local preset that lists models within `timeoutMs`, or undefined. */
export async function detectLocalServer(timeoutMs = 1200, fetchModels: typeof fetch = fetch): Promise<DetectedServer | undefined> {
  const local = PRESETS.filter((preset) => preset.api_base.startsWith('http://localhost'));
  const attempts = local.map(async (preset): Promise<DetectedServer> => {
    const response = await fetchModels(`${preset.api_base}/models`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    const first = Array.isArray(body.data) ? body.data.map((entry) => entry.id).find((id) => typeof id === 'string') : undefined;
    return { settings: { preset: preset.id, api_base: preset.api_base, model: typeof first === 'string' ? first : '', api_key: '' }, label: preset.label };
  });
  try {
    return await Promise.any(attempts);
  } catch {
    return undefined;
  }
}
