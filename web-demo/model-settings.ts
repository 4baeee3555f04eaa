/**
 * Model settings of the web demo: which model server the agents call. Presets for the local
 * servers people run (Ollama, LM Studio, llama.cpp server), any OpenAI-compatible URL with a key,
 * and the built-in scripted demo model, which answers from the responses written in the agent
 * file (`settings.llm.scripted`) and needs no server. Persisted in localStorage, except the API
 * key, which by default lives only in this tab (sessionStorage) unless the user asks the browser
 * to remember it: anything in localStorage stays on disk and is readable by every script of the
 * page's origin.
 */

export type PresetId = 'scripted' | 'ollama' | 'lmstudio' | 'llamacpp' | 'custom';

/** Where the API key is kept: this tab only (sessionStorage, or memory) or this browser (localStorage). */
export type KeyStorage = 'session' | 'local';

export interface ModelSettings {
  preset: PresetId;
  api_base: string;
  model: string;
  api_key: string;
  /** Default `session`. */
  key_storage?: KeyStorage;
}

export interface Preset {
  id: PresetId;
  label: string;
  api_base: string;
  /** What to do when the browser cannot reach it because of CORS. */
  cors_fix: string;
  /** How to start it when nothing is listening. */
  start_hint: string;
}

export const PRESETS: readonly Preset[] = [
  {
    id: 'scripted',
    label: 'Scripted demo model (built in, no server: answers from the agent file)',
    api_base: '',
    cors_fix: '',
    start_hint: '',
  },
  {
    id: 'ollama',
    label: 'Ollama',
    api_base: 'http://localhost:11434/v1',
    cors_fix:
      'Start Ollama with this page allowed: OLLAMA_ORIGINS="*" ollama serve (or set OLLAMA_ORIGINS to this page\'s origin). With the desktop app on macOS: launchctl setenv OLLAMA_ORIGINS "*", then quit and reopen Ollama.',
    start_hint: 'Start it with: ollama serve (and fetch a model once with: ollama pull llama3.2).',
  },
  {
    id: 'lmstudio',
    label: 'LM Studio',
    api_base: 'http://localhost:1234/v1',
    cors_fix:
      'In LM Studio open the Developer tab, server settings, and turn on "Enable CORS"; then restart the server.',
    start_hint:
      'In LM Studio open the Developer tab and start the server (port 1234), or run: lms server start --cors.',
  },
  {
    id: 'llamacpp',
    label: 'llama.cpp server',
    api_base: 'http://localhost:8080/v1',
    cors_fix:
      "llama-server answers CORS by default: a proxy in front of it must pass Access-Control-Allow-Origin through (or allow this page's origin itself).",
    start_hint: 'Start it with: llama-server -m model.gguf --port 8080.',
  },
  {
    id: 'custom',
    label: 'Any OpenAI-compatible URL',
    api_base: '',
    cors_fix:
      'The server must answer OPTIONS requests and send Access-Control-Allow-Origin (and allow the content-type and authorization headers).',
    start_hint: 'Check the URL (host, port, /v1) and that the server is running.',
  },
];

export const STORAGE_KEY = 'tea-edge.model-settings';
/** The sessionStorage entry of a key kept for this tab only. */
export const SESSION_KEY = 'tea-edge.model-key';

type Readable = Pick<Storage, 'getItem'>;
type Writable = Pick<Storage, 'setItem' | 'removeItem'> | Pick<Storage, 'setItem'>;

/** The settings used before anything was chosen. */
export function defaultSettings(): ModelSettings {
  return { preset: 'scripted', api_base: '', model: '', api_key: '', key_storage: 'session' };
}

/** The preset with this id (the scripted one for an unknown id). */
export function presetById(id: string): Preset {
  return PRESETS.find((preset) => preset.id === id) ?? PRESETS[0]!;
}

/**
 * Reads saved settings; broken or missing storage gives the defaults. The key comes from
 * localStorage when the user chose to keep it there (or an older version saved it there), else
 * from this tab's sessionStorage.
 */
export function loadSettings(
  storage: Readable | undefined,
  session?: Readable,
): { settings: ModelSettings; saved: boolean } {
  try {
    const raw = storage?.getItem(STORAGE_KEY);
    if (raw) {
      const value = JSON.parse(raw) as Partial<ModelSettings>;
      const preset = presetById(String(value.preset)).id;
      const savedKey = typeof value.api_key === 'string' ? value.api_key : '';
      const keyStorage: KeyStorage =
        value.key_storage === 'local' || (value.key_storage === undefined && savedKey !== '') ? 'local' : 'session';
      return {
        settings: {
          preset,
          api_base: typeof value.api_base === 'string' ? value.api_base : presetById(preset).api_base,
          model: typeof value.model === 'string' ? value.model : '',
          api_key: keyStorage === 'local' ? savedKey : readSessionKey(session),
          key_storage: keyStorage,
        },
        saved: true,
      };
    }
  } catch {
    // Private mode or a corrupt entry: fall back to the defaults.
  }
  return { settings: defaultSettings(), saved: false };
}

/**
 * Saves settings; a storage failure (quota, private mode) is ignored. The key goes to
 * localStorage only when `key_storage` is `local`; otherwise to `session` (this tab), and any
 * copy left in localStorage is overwritten.
 */
export function saveSettings(storage: Writable | undefined, settings: ModelSettings, session?: Writable): void {
  const keyStorage: KeyStorage = settings.key_storage === 'local' ? 'local' : 'session';
  try {
    storage?.setItem(
      STORAGE_KEY,
      JSON.stringify({ ...settings, api_key: keyStorage === 'local' ? settings.api_key : '', key_storage: keyStorage }),
    );
  } catch {
    // Nothing else to do: the settings still apply to this page.
  }
  try {
    if (keyStorage === 'session' && settings.api_key !== '') session?.setItem(SESSION_KEY, settings.api_key);
    else if (session && 'removeItem' in session) session.removeItem(SESSION_KEY);
  } catch {
    // No sessionStorage: the key lives in this page's memory until it is closed.
  }
}

function readSessionKey(session: Readable | undefined): string {
  try {
    return session?.getItem(SESSION_KEY) ?? '';
  } catch {
    return '';
  }
}

/**
 * The host overrides the engine gets for these settings (RunOptions.llm.overrides): they win over
 * the agent's settings.llm, nested calls included. The scripted model keeps the agent's own
 * scripted responses and only forces the provider.
 */
export function toOverrides(settings: ModelSettings): {
  provider?: string;
  api_base?: string;
  model?: string;
  api_key?: string;
} {
  if (settings.preset === 'scripted') return { provider: 'scripted' };
  const overrides: { provider?: string; api_base?: string; model?: string; api_key?: string } = {
    provider: settings.preset === 'custom' ? 'openai-compatible' : settings.preset,
    api_base: settings.api_base || presetById(settings.preset).api_base,
  };
  if (settings.model) overrides.model = settings.model;
  if (settings.api_key) overrides.api_key = settings.api_key;
  return overrides;
}
