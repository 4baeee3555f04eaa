/**
 * Run, Cancel run and Resume paused run: Run is off while a run goes, and in the tab while the
 * agent has load problems; Cancel is on while a run goes; Resume shows for a run paused by an
 * interrupt (tool approvals use the dialog). Ctrl+Enter (⌘+Enter) runs when Run is on.
 */
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export interface RunButtons {
  readonly running: boolean;
  setRunning(value: boolean): void;
  /** Re-reads whether Run may be on (`canRun`). */
  update(): void;
  showResume(visible: boolean): void;
}

export function createRunButtons(options: {
  canRun(): boolean;
  onRun(): void;
  onCancel(): void;
  onResume(): void;
}): RunButtons {
  const runButton = byId<HTMLButtonElement>('run-button');
  const cancelButton = byId<HTMLButtonElement>('cancel-button');
  const resumeButton = byId<HTMLButtonElement>('resume-button');
  let running = false;
  const update = () => {
    runButton.disabled = running || !options.canRun();
  };
  runButton.addEventListener('click', options.onRun);
  cancelButton.addEventListener('click', options.onCancel);
  resumeButton.addEventListener('click', options.onResume);
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 'Enter' && !runButton.disabled) {
      event.preventDefault();
      options.onRun();
    }
  });
  return {
    get running() {
      return running;
    },
    setRunning(value) {
      running = value;
      update();
      cancelButton.disabled = !value;
      if (value) resumeButton.hidden = true;
    },
    update,
    showResume(visible) {
      resumeButton.hidden = !visible;
    },
  };
}
