/**
 * Thrown by `context.requestConfirmation` to pause a run for a tool confirmation. It is control
 * flow, not an error: the run loop turns it into a checkpoint, a `confirmation_request` event and
 * an interrupt. Actions that catch errors must rethrow it (check with `isPauseSignal`).
 */
export class PauseSignal {
  readonly isPauseSignal = true;
  constructor(
    readonly request: { tool: string; arguments: unknown; call_id: string; resume_data: Record<string, unknown> },
  ) {}
}

export function isPauseSignal(value: unknown): value is PauseSignal {
  return typeof value === 'object' && value !== null && (value as { isPauseSignal?: unknown }).isPauseSignal === true;
}
