/**
 * The tab's model: its settings panel, the header badge, and the first-start search for a model
 * server on this machine. In server mode the server's settings decide, so the badge says so and
 * nothing is probed (the search runs once the page knows it runs agents in the tab).
 */
import type { EngineClient } from './engine-client.js';
import { scanLocalServers } from './local-detect.js';
import { loadSettings, presetById, saveSettings, type ModelSettings } from './model-settings.js';
import { createSettingsPanel } from './settings-panel.js';

export interface ModelPanelOptions {
  storage: Storage | undefined;
  session: Storage | undefined;
  client: EngineClient;
  /** True while runs go to a server. */
  remote(): boolean;
}

export interface ModelPanel {
  /** The tab's settings now. */
  settings(): ModelSettings;
  /** Redraws the header badge (after a switch of back-end). */
  showBadge(): void;
  /** Looks for a local model server once, unless settings were saved before. */
  scanOnce(): void;
  /** How a run in the tab names its model. */
  runLabel(): string;
}

const byId = (id: string) => document.getElementById(id) as HTMLElement;

export function createModelPanel({ storage, session, client, remote }: ModelPanelOptions): ModelPanel {
  const loaded = loadSettings(storage, session);
  let model: ModelSettings = loaded.settings;
  const badge = byId('model-badge');
  const showBadge = () => {
    badge.textContent = remote()
      ? 'Models of the server'
      : model.preset === 'scripted'
        ? 'Scripted demo model'
        : `${presetById(model.preset).label}${model.model ? ` · ${model.model}` : ''}`;
    badge.dataset.preset = remote() ? 'server' : model.preset;
  };
  const settingsPanel = createSettingsPanel({
    root: byId('settings-panel'),
    settings: model,
    onChange: (next) => {
      model = next;
      saveSettings(storage, model, session);
      showBadge();
    },
    probe: (settings) => client.probe(settings),
  });
  showBadge();
  let scanned = loaded.saved;
  const scanOnce = () => {
    if (scanned) return;
    scanned = true;
    settingsPanel.showProbe(undefined, 'Looking for a model server on this machine…');
    void scanLocalServers().then(({ found, refusing }) => {
      if (found) {
        model = { ...found.settings, key_storage: model.key_storage ?? 'session' };
        settingsPanel.set(model);
        showBadge();
        void client
          .probe(model)
          .then((outcome) => settingsPanel.showProbe(outcome, `Found ${found.label} at ${model.api_base}.`));
      } else if (refusing.length > 0) {
        settingsPanel.showStartupRefusal(refusing);
      } else {
        settingsPanel.showProbe(
          undefined,
          'Nothing answered on localhost (Ollama :11434, LM Studio :1234, llama.cpp :8080): no model server is listening there, so the scripted demo model is selected. Start one, pick it above and press Test connection.',
        );
      }
    });
  };
  return {
    settings: () => model,
    showBadge,
    scanOnce,
    runLabel: () =>
      model.preset === 'scripted' ? 'scripted demo model' : `${presetById(model.preset).label} ${model.model}`,
  };
}
