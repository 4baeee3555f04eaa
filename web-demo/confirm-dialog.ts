/**
 * The tool-approval dialog of index.html: the tool and its arguments, Approve or Deny. It opens
 * on the safe choice (Deny has the focus) and cannot be dismissed with Escape: the run waits for
 * an answer.
 */
export interface ConfirmDialog {
  /** Shows the call waiting for approval (kept open if it already is). */
  open(call: { tool: string; arguments: unknown }): void;
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function createConfirmDialog(answer: (approved: boolean) => void): ConfirmDialog {
  const dialog = byId<HTMLDialogElement>('confirm-dialog');
  const reply = (approved: boolean) => {
    dialog.close();
    answer(approved);
  };
  byId('approve-button').addEventListener('click', () => reply(true));
  byId('deny-button').addEventListener('click', () => reply(false));
  dialog.addEventListener('cancel', (event) => event.preventDefault());
  return {
    open(call) {
      byId('confirm-tool').textContent = call.tool;
      byId('confirm-args').textContent = JSON.stringify(call.arguments ?? {}, null, 2);
      if (dialog.open) return;
      dialog.showModal();
      // The safe choice has the focus: Enter on an unread dialog denies the tool.
      byId('deny-button').focus();
    },
  };
}
