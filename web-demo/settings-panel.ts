/**
 * The model settings panel: preset, URL, model (with the list from `/v1/models`), key, and the
 * capability probe's result, including a CORS failure explained with the exact fix.
 */
import { element, replaceChildren } from './dom.js';
import { PRESETS, presetById, type ModelSettings, type PresetId } from './model-settings.js';
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
}

/** Builds the panel inside `root`. */
export function createSettingsPanel(options: SettingsPanelOptions): SettingsPanel {
  let settings = { ...options.settings };
  const presetSelect = element('select', { id: 'model-preset' }, ...PRESETS.map((preset) => element('option', { value: preset.id }, preset.label)));
  const urlInput = element('input', { id: 'model-url', type: 'url', placeholder: 'http://localhost:11434/v1', autocomplete: 'off', spellcheck: 'false' });
  const modelInput = element('input', { id: 'model-name', list: 'model-list', placeholder: 'model name (from the list or typed)', autocomplete: 'off', spellcheck: 'false' });
  const modelList = element('datalist', { id: 'model-list' });
  const keyInput = element('input', { id: 'model-key', type: 'password', placeholder: 'only for servers that need one', autocomplete: 'off' });
  const probeButton = element('button', { type: 'button', id: 'probe-button' }, 'Test connection');
  const result = element('div', { id: 'probe-result', role: 'status', 'aria-live': 'polite' });
  const serverFields = element(
    'div',
    { class: 'server-fields' },
    field('Server URL (OpenAI-compatible, ends in /v1)', urlInput),
    field('Model', modelInput, modelList),
    field('API key', keyInput),
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
    const scripted = settings.preset === 'scripted';
    serverFields.hidden = scripted;
    scriptedNote.hidden = !scripted;
  };
  const changed = () => {
    settings = { preset: presetSelect.value as PresetId, api_base: urlInput.value.trim(), model: modelInput.value.trim(), api_key: keyInput.value };
    options.onChange({ ...settings });
  };
  presetSelect.addEventListener('change', () => {
    const preset = presetById(presetSelect.value);
    settings = { ...settings, preset: preset.id, api_base: preset.api_base || settings.api_base, model: '' };
    sync();
    result.replaceChildren();
    options.onChange({ ...settings });
  });
  for (const input of [urlInput, modelInput, keyInput]) input.addEventListener('change', changed);

  const panel: SettingsPanel = {
    set(next) {
      settings = { ...next };
      sync();
    },
    showProbe(outcome, note) {
      if (!outcome) {
        replaceChildren(result, note ? element('p', { class: 'note' }, note) : null);
        return;
      }
      replaceChildren(modelList, ...outcome.models.map((model) => element('option', { value: model })));
      const preset = presetById(settings.preset);
      const lines: Node[] = [];
      if (note) lines.push(element('p', { class: 'note' }, note));
      if (outcome.ok) {
        // No model chosen yet: take the first one the server lists (it can be changed).
        if (!settings.model && outcome.models.length > 0) {
          modelInput.value = outcome.models[0]!;
          changed();
        }
        lines.push(element('p', { class: 'ok-text' }, `Connected: ${outcome.models.length} model${outcome.models.length === 1 ? '' : 's'} (${outcome.models.slice(0, 6).join(', ') || 'none listed'}).`));
        const capabilities = Object.entries(outcome.capabilities).filter(([, value]) => typeof value === 'boolean' || value === null);
        if (capabilities.length > 0) {
          lines.push(
            element(
              'ul',
              { class: 'capabilities', 'aria-label': 'What the server can do' },
              ...capabilities.map(([name, value]) =>
                element('li', {}, element('span', { class: `badge ${value === null ? '' : value ? 'ok' : 'bad'}` }, value === null ? 'not tested' : value ? 'yes' : 'no'), ` ${name.replace(/_/g, ' ')}`),
              ),
            ),
          );
        }
      } else if (outcome.cors_error) {
        lines.push(element('p', { class: 'bad-text', id: 'cors-error' }, 'The browser blocked the request (CORS): the server did not allow this page to call it.'));
        lines.push(element('p', {}, element('b', {}, 'Fix: '), preset.cors_fix || presetById('custom').cors_fix));
        if (outcome.error && !outcome.advice.includes(outcome.error)) lines.push(element('p', { class: 'note' }, outcome.error));
      } else {
        lines.push(element('p', { class: 'bad-text' }, `No answer from ${settings.api_base || preset.api_base}: ${outcome.error ?? 'the server did not respond'}.`));
        if (preset.cors_fix) lines.push(element('p', {}, 'If the server is running, the browser may be blocking it (CORS). ', element('b', {}, 'Fix: '), preset.cors_fix));
      }
      for (const advice of new Set(outcome.advice)) lines.push(element('p', { class: 'note' }, advice));
      replaceChildren(result, ...lines);
    },
  };
  probeButton.addEventListener('click', async () => {
    changed();
    probeButton.disabled = true;
    replaceChildren(result, element('p', { class: 'note' }, 'Testing…'));
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
