/**
 * Model settings of the web demo: which model server the agents call. Presets for the local
 * servers people run (Ollama, LM Studio, llama.cpp server), any OpenAI-compatible URL with a key,
 * and the built-in scripted demo model, which answers from the responses written in the agent
 * file (`settings.llm.scripted`) and needs no server. Persisted in localStorage.
 */

export type PresetId = 'scripted' | 'ollama' | 'lmstudio' | 'llamacpp' | 'custom';

export interface ModelSettings {
  preset: PresetId;
  api_base: string;
  model: string;
  api_key: string;
}

export interface Preset {
  id: PresetId;
  label: string;
  api_base: string;
  /** What to do when the browser cannot reach it because of CORS. */
  cors_fix: string;
}

export const PRESETS: readonly Preset[] = [
  { id: 'scripted', label: 'Scripted demo model (built in, no server: answers from the agent file)', api_base: '', cors_fix: '' },
  {
    id: 'ollama',
    label: 'Ollama',
    api_base: 'http://localhost:11434/v1',
    cors_fix: 'Start Ollama with this page allowed: OLLAMA_ORIGINS="*" ollama serve (or set OLLAMA_ORIGINS to this page\'s origin).',
  },
  {
    id: 'lmstudio',
    label: 'LM Studio',
    api_base: 'http://localhost:1234/v1',
    cors_fix: 'In LM Studio open the Developer tab, server settings, and turn on "Enable CORS"; then restart the server.',
  },
  {
    id: 'llamacpp',
    label: 'llama.cpp server',
    api_base: 'http://localhost:8080/v1',
    cors_fix: 'llama-server answers CORS by default; check the port and that it was not started with a different --host/--port.',
  },
  {
    id: 'custom',
    label: 'Any OpenAI-compatible URL',
    api_base: '',
    cors_fix: 'The server must answer OPTIONS requests and send Access-Control-Allow-Origin (and allow the content-type and authorization headers).',
  },
];

export const STORAGE_KEY = 'tea-edge.model-settings';

/** The settings used before anything was chosen. */
export function defaultSettings(): ModelSettings {
  return { preset: 'scripted', api_base: '', model: '', api_key: '' };
}

/** The preset with this id (the scripted one for an unknown id). */
export function presetById(id: string): Preset {
  return PRESETS.find((preset) => preset.id === id) ?? PRESETS[0]!;
}

/** Reads saved settings; broken or missing storage gives the defaults. */
export function loadSettings(storage: Pick<Storage, 'getItem'> | undefined): { settings: ModelSettings; saved: boolean } {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    if (raw) {
      const value = JSON.parse(raw) as Partial<ModelSettings>;
      const preset = presetById(String(value.preset)).id;
      return {
        settings: {
          preset,
          api_base: typeof value.api_base === 'string' ? value.api_base : presetById(preset).api_base,
          model: typeof value.model === 'string' ? value.model : '',
          api_key: typeof value.api_key === 'string' ? value.api_key : '',
        },
        saved: true,
      };
    }
  } catch {
    // Private mode or a corrupt entry: fall back to the defaults.
  }
  return { settings: defaultSettings(), saved: false };
}

/** Saves settings; a storage failure (quota, private mode) is ignored. */
export function saveSettings(storage: Pick<Storage, 'setItem'> | undefined, settings: ModelSettings): void {
  try {
    storage?.setItem(STORAGE_KEY, JSON.stringify(settings));
  } catch {
    // Nothing else to do: the settings still apply to this page.
  }
}

/**
 * The host overrides the engine gets for these settings (RunOptions.llm.overrides): they win over
 * the agent's settings.llm, nested calls included. The scripted model keeps the agent's own
 * scripted responses and only forces the provider.
 */
export function toOverrides(settings: ModelSettings): { provider?: string; api_base?: string; model?: string; api_key?: string } {
  if (settings.preset === 'scripted') return { provider: 'scripted' };
  const overrides: { provider?: string; api_base?: string; model?: string; api_key?: string } = {
    provider: settings.preset === 'custom' ? 'openai-compatible' : settings.preset,
    api_base: settings.api_base || presetById(settings.preset).api_base,
  };
  if (settings.model) overrides.model = settings.model;
  if (settings.api_key) overrides.api_key = settings.api_key;
  return overrides;
}
