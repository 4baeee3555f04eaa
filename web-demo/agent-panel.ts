/**
 * The agent panel: the example picker, the agent text (a plain text area until the CodeMirror
 * editor arrives, then the editor), validation through the engine worker with the problems
 * listed under the editor, and the run input.
 */
import { element } from './dom.js';
import type { AgentProblem } from './protocol.js';
import type { Validation } from './engine-client.js';
import { agentNameOf, deleteDraft, lastDraft, loadDraft, markLastAgent, saveDraft } from './drafts.js';

export interface AgentPanelOptions {
  validate(text: string): Promise<Validation>;
  /** Called with each validation result (to draw the graph). */
  onValidated(result: Validation): void;
  storage?: Storage | undefined;
}

export interface AgentPanel {
  getText(): string;
  setText(text: string): void;
  /** Validates now and shows the problems. */
  validateNow(text: string): Promise<AgentProblem[]>;
  /** Resolves once the editor replaced the text area (or failed to load). */
  editorLoaded: Promise<void>;
  /** The bundled examples (their own chunk, loaded after the first paint: ~10 KB gzipped). */
  examples: Promise<Example[]>;
}

export interface Example {
  file: string;
  source: string;
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** Where the example picked last is remembered. */
const EXAMPLE_KEY = 'tea-edge.example';

/** Wires the panel in index.html. */
export function createAgentPanel(options: AgentPanelOptions): AgentPanel {
  const exampleSelect = byId<HTMLSelectElement>('example-select');
  exampleSelect.appendChild(element('option', { value: '' }, '(your own agent)'));
  let examples: Example[] = [];
  const examplesLoaded = import('virtual:examples').then(
    (module) => (examples = module.default),
    () => [],
  );
  const textArea = byId<HTMLTextAreaElement>('agent-source');
  const inputArea = byId<HTMLTextAreaElement>('run-input');
  const problemsList = byId('problems');
  let editor: { getText(): string; setText(text: string): void } = {
    getText: () => textArea.value,
    setText: (text) => (textArea.value = text),
  };
  let validateTimer = 0;

  let latest = 0;
  const validateNow = async (text: string) => {
    const mine = ++latest;
    const result = await options.validate(text);
    // Answers can come back out of order (the Lua engine starts later than the light one): an
    // older text's answer must not replace the problems of the text in the editor now.
    if (mine !== latest) return result.problems;
    options.onValidated(result);
    problemsList.replaceChildren(
      ...result.problems.map((problem) =>
        element(
          'li',
          { class: 'problem' },
          element('code', {}, problem.code),
          problem.line ? ` line ${problem.line}${problem.column ? `:${problem.column}` : ''}` : '',
          problem.node !== undefined ? `, node ${problem.node}` : '',
          problem.field !== undefined ? `, field ${problem.field}` : '',
          ': ',
          problem.message,
        ),
      ),
    );
    const count = result.problems.length;
    byId('agent-status').textContent =
      count === 0
        ? 'The agent is valid.'
        : `${count} problem${count === 1 ? '' : 's'} found: Run is off until ${count === 1 ? 'it is' : 'they are'} fixed.`;
    return result.problems;
  };
  // Drafts: every edit is saved (per agent name) after a pause; picking an example with a draft
  // restores the draft and offers the example as shipped.
  const draftNote = byId('draft-note');
  let draftTimer = 0;
  const showDraft = (text: string, restored: boolean) => {
    const name = agentNameOf(text);
    draftNote.hidden = !name;
    if (!name) return;
    draftNote.replaceChildren(
      restored ? `Restored your draft of ${name}. ` : `Draft of ${name} saved in this browser. `,
      element(
        'button',
        { type: 'button', id: 'discard-draft', onclick: () => void discard(name) },
        restored ? 'Use the file as shipped' : 'Discard the draft',
      ),
    );
  };
  const discard = async (name: string) => {
    await deleteDraft(name);
    const shipped = examples.find((entry) => agentNameOf(entry.source) === name);
    draftNote.hidden = true;
    if (shipped) {
      exampleSelect.value = shipped.file;
      editor.setText(shipped.source);
      scheduleValidate();
    }
  };
  const noteEdit = (text: string) => {
    const chosen = examples.find((entry) => entry.file === exampleSelect.value);
    if (chosen && chosen.source !== text) exampleSelect.value = '';
    clearTimeout(draftTimer);
    draftTimer = window.setTimeout(() => {
      const shipped = examples.find((entry) => entry.source === text);
      if (shipped) return;
      void saveDraft(text, options.storage).then(
        () => showDraft(text, false),
        () => undefined,
      );
    }, 500);
  };
  const scheduleValidate = () => {
    clearTimeout(validateTimer);
    validateTimer = window.setTimeout(() => void validateNow(editor.getText()), 300);
  };
  const pickExample = async (file: string) => {
    const example = examples.find((entry) => entry.file === file);
    if (!example) return;
    const name = agentNameOf(example.source);
    const draft = name ? await loadDraft(name) : undefined;
    const text = draft && draft.text !== example.source ? draft.text : example.source;
    editor.setText(text);
    if (text !== example.source) showDraft(text, true);
    else draftNote.hidden = true;
    inputArea.value = exampleInput(example.source);
    scheduleValidate();
  };
  exampleSelect.addEventListener('change', () => {
    const chosen = examples.find((example) => example.file === exampleSelect.value);
    if (chosen) {
      options.storage?.setItem(EXAMPLE_KEY, chosen.file);
      const name = agentNameOf(chosen.source);
      if (name) markLastAgent(options.storage, name);
    }
    void pickExample(exampleSelect.value);
  });
  textArea.addEventListener('input', () => {
    noteEdit(textArea.value);
    scheduleValidate();
  });
  const showExamples = () => {
    for (const example of examples) exampleSelect.appendChild(element('option', { value: example.file }, example.file));
    // The example picked last comes back; at the first visit, a reflection example.
    const picked = options.storage?.getItem(EXAMPLE_KEY);
    const preferred =
      examples.find((example) => example.file === picked) ??
      examples.find((example) => example.file.startsWith('reflection')) ??
      examples[0];
    if (preferred) {
      exampleSelect.value = preferred.file;
      editor.setText(preferred.source);
      inputArea.value = exampleInput(preferred.source);
    }
  };
  // The draft edited last comes back before the editor is shown (so nothing typed is replaced).
  const restored = examplesLoaded
    .then(showExamples)
    .then(() => lastDraft(options.storage))
    .then((draft) => {
      if (!draft) return;
      const shipped = examples.find((entry) => agentNameOf(entry.source) === draft.name);
      exampleSelect.value = shipped && shipped.source === draft.text ? shipped.file : '';
      editor.setText(draft.text);
      showDraft(draft.text, true);
    })
    .catch(() => undefined)
    .finally(scheduleValidate);

  // The editor is its own chunk, loaded after the first paint.
  const loadEditor = async () => {
    await restored;
    const { createEditor } = await import('./editor.js');
    const host = byId('editor-host');
    editor = createEditor({
      parent: host,
      text: textArea.value,
      label: 'Agent YAML',
      validate: validateNow,
      onChange: noteEdit,
    });
    textArea.hidden = true;
    host.hidden = false;
    performance.mark('tea-editor-ready');
    document.body.dataset.editor = 'ready';
  };
  const editorLoaded = new Promise<void>((resolve) =>
    setTimeout(
      () =>
        void loadEditor().then(resolve, () => {
          document.body.dataset.editor = 'failed';
          resolve();
        }),
      0,
    ),
  );

  return {
    getText: () => editor.getText(),
    setText: (text) => editor.setText(text),
    validateNow,
    editorLoaded,
    examples: examplesLoaded,
  };
}

/** An example's suggested input: a `# input: {...}` comment line, else `{}`. */
export function exampleInput(source: string): string {
  const line = /^#\s*input:\s*(\{.*\})\s*$/m.exec(source)?.[1];
  if (!line) return '{}';
  try {
    return JSON.stringify(JSON.parse(line), null, 2);
  } catch {
    return '{}';
  }
}
