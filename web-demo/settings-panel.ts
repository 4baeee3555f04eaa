/**
 * The model settings panel: preset, URL, model (with the list from `/v1/models`), key and where
 * the key is kept, and the probe's result: connected, nothing listening, refused by CORS (with
 * the fix), or failing (HTTP status and body).
 */
import { element, replaceChildren } from './dom.js';
import {
  PRESETS,
  presetById,
  type KeyStorage,
  type ModelSettings,
  type Preset,
  type PresetId,
} from './model-settings.js';
import { probeReport } from './probe-report.js';
import type { ProbeOutcome } from './protocol.js';

export interface SettingsPanelOptions {
  root: HTMLElement;
  settings: ModelSettings;
  onChange(settings: ModelSettings): void;
  probe(settings: ModelSettings): Promise<ProbeOutcome>;
}

export interface SettingsPanel {
  set(settings: ModelSettings): void;
  showProbe(outcome: ProbeOutcome | undefined, note?: string): void;
  /** At start-up: local servers run but refuse this page (CORS); says so with each fix. */
  showStartupRefusal(presets: readonly Preset[]): void;
}

const KEY_STORAGE_NOTES: Record<KeyStorage, string> = {
  session:
    'The key is kept in this tab only (sessionStorage): it survives a reload and is forgotten when the tab closes.',
  local:
    "The key is saved in this browser (localStorage): it stays on this computer until you clear it, and any script running on this page's origin can read it. Use this only on a computer you trust.",
};

/** Builds the panel inside `root`. */
export function createSettingsPanel(options: SettingsPanelOptions): SettingsPanel {
  let settings: ModelSettings = { key_storage: 'session', ...options.settings };
  const presetSelect = element(
    'select',
    { id: 'model-preset' },
    ...PRESETS.map((preset) => element('option', { value: preset.id }, preset.label)),
  );
  const urlInput = element('input', {
    id: 'model-url',
    type: 'url',
    placeholder: 'http://localhost:11434/v1',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const modelInput = element('input', {
    id: 'model-name',
    list: 'model-list',
    placeholder: 'model name (from the list or typed)',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const modelList = element('datalist', { id: 'model-list' });
  const keyInput = element('input', {
    id: 'model-key',
    type: 'password',
    placeholder: 'only for servers that need one',
    autocomplete: 'off',
    'aria-describedby': 'key-storage-note',
  });
  const keyStorageSelect = element(
    'select',
    { id: 'key-storage', 'aria-describedby': 'key-storage-note' },
    element('option', { value: 'session' }, 'This tab only (forgotten when the tab closes)'),
    element('option', { value: 'local' }, 'Remember in this browser (localStorage)'),
  );
  const keyStorageNote = element('p', { class: 'note', id: 'key-storage-note' });
  const probeButton = element('button', { type: 'button', id: 'probe-button' }, 'Test connection');
  const result = element('div', { id: 'probe-result', class: 'probe-result', role: 'status', 'aria-live': 'polite' });
  const serverFields = element(
    'div',
    { class: 'server-fields' },
    field('Server URL (OpenAI-compatible, ends in /v1)', urlInput),
    field('Model', modelInput, modelList),
    field('API key', keyInput),
    field('Keep the API key', keyStorageSelect, keyStorageNote),
    element('div', { class: 'row' }, probeButton),
  );
  const scriptedNote = element(
    'p',
    { class: 'note', id: 'scripted-note' },
    'The scripted demo model is built in: it answers with the responses written in the agent file (settings.llm.scripted). Nothing leaves this tab. Pick a server above to use a real local model.',
  );
  replaceChildren(options.root, field('Model server', presetSelect), scriptedNote, serverFields, result);

  const sync = () => {
    presetSelect.value = settings.preset;
    urlInput.value = settings.api_base;
    modelInput.value = settings.model;
    keyInput.value = settings.api_key;
    keyStorageSelect.value = settings.key_storage ?? 'session';
    keyStorageNote.textContent = KEY_STORAGE_NOTES[settings.key_storage ?? 'session'];
    const scripted = settings.preset === 'scripted';
    serverFields.hidden = scripted;
    scriptedNote.hidden = !scripted;
  };
  const changed = () => {
    settings = {
      preset: presetSelect.value as PresetId,
      api_base: urlInput.value.trim(),
      model: modelInput.value.trim(),
      api_key: keyInput.value,
      key_storage: keyStorageSelect.value === 'local' ? 'local' : 'session',
    };
    keyStorageNote.textContent = KEY_STORAGE_NOTES[settings.key_storage!];
    options.onChange({ ...settings });
  };
  presetSelect.addEventListener('change', () => {
    const preset = presetById(presetSelect.value);
    settings = { ...settings, preset: preset.id, api_base: preset.api_base || settings.api_base, model: '' };
    sync();
    result.replaceChildren();
    options.onChange({ ...settings });
  });
  for (const input of [urlInput, modelInput, keyInput, keyStorageSelect]) input.addEventListener('change', changed);

  const panel: SettingsPanel = {
    set(next) {
      settings = { key_storage: settings.key_storage ?? 'session', ...next };
      sync();
    },
    showProbe(outcome, note) {
      if (!outcome) {
        replaceChildren(result, note ? element('p', { class: 'note' }, note) : null);
        return;
      }
      replaceChildren(modelList, ...outcome.models.map((model) => element('option', { value: model })));
      // No model chosen yet: take the first one the server lists (it can be changed).
      if (outcome.ok && !settings.model && outcome.models.length > 0) {
        modelInput.value = outcome.models[0]!;
        changed();
      }
      replaceChildren(
        result,
        note ? element('p', { class: 'note' }, note) : null,
        ...probeReport(outcome, settings, location.origin),
      );
    },
    showStartupRefusal(presets) {
      replaceChildren(
        result,
        ...presets.flatMap((preset) => [
          element(
            'p',
            { class: 'bad-text', id: `startup-cors-${preset.id}` },
            `${preset.label} is running at ${preset.api_base}, but the browser blocked this page (${location.origin}) from calling it (CORS), so the scripted demo model is selected.`,
          ),
          element('p', {}, element('b', {}, 'Fix: '), preset.cors_fix),
        ]),
      );
    },
  };
  probeButton.addEventListener('click', async () => {
    changed();
    probeButton.disabled = true;
    replaceChildren(
      result,
      element('p', { class: 'note' }, element('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Testing…'),
    );
    try {
      panel.showProbe(await options.probe({ ...settings }));
    } finally {
      probeButton.disabled = false;
    }
  });
  sync();
  return panel;
}

function field(label: string, control: HTMLElement, ...extra: HTMLElement[]): HTMLElement {
  const id = control.id;
  return element('div', { class: 'field' }, element('label', { for: id }, label), control, ...extra);
}
