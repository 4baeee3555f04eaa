/**
 * The quick start-up look for a model server on this machine: asks each local preset for
 * `/v1/models` at once, with a short timeout. A preset that does not answer the normal request is
 * asked again in `no-cors` mode: an opaque answer means the server runs but refuses this page
 * (CORS), which the page then explains instead of saying that nothing is there.
 */
import { PRESETS, type ModelSettings, type Preset } from './model-settings.js';
import { reachable } from './probe-diagnosis.js';

export interface DetectedServer {
  settings: ModelSettings;
  label: string;
}

export interface LocalScan {
  /** The first local preset (in preset order) that listed its models. */
  found?: DetectedServer;
  /** Local servers that are running but refused this page (CORS). */
  refusing: Preset[];
}

/** Scans the local presets; each look ends within about `timeoutMs`. */
export async function scanLocalServers(
  timeoutMs = 1200,
  fetchFunction: typeof fetch = (input, init) => fetch(input, init),
): Promise<LocalScan> {
  const local = PRESETS.filter((preset) => preset.api_base.startsWith('http://localhost'));
  const looks = await Promise.all(
    local.map(async (preset) => {
      const url = `${preset.api_base}/models`;
      const [listed, reach] = await Promise.all([
        listModels(url, fetchFunction, timeoutMs),
        reachable(url, fetchFunction, timeoutMs),
      ]);
      return { preset, listed, up: reach.up };
    }),
  );
  // Refused means the normal request threw (no HTTP answer reached the page) while something answered.
  const scan: LocalScan = {
    refusing: looks.filter((look) => look.listed === 'refused' && look.up).map((look) => look.preset),
  };
  const first = looks.find((look) => typeof look.listed === 'object');
  if (first && typeof first.listed === 'object') {
    scan.found = {
      settings: { preset: first.preset.id, api_base: first.preset.api_base, model: first.listed.model, api_key: '' },
      label: first.preset.label,
    };
  }
  return scan;
}

/** The first model the server lists ('' when none); `refused` when no answer reached the page; `failed` for an HTTP error or a body that is not a model list. */
async function listModels(
  url: string,
  fetchFunction: typeof fetch,
  timeoutMs: number,
): Promise<{ model: string } | 'refused' | 'failed'> {
  let response: Response;
  try {
    response = await fetchFunction(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    return 'refused';
  }
  if (!response.ok) return 'failed';
  try {
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    const first = Array.isArray(body.data)
      ? body.data.map((entry) => entry?.id).find((id) => typeof id === 'string')
      : undefined;
    return { model: typeof first === 'string' ? first : '' };
  } catch {
    return 'failed';
  }
}
