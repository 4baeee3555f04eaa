/**
 * A confirmation pause as a value. `context.requestConfirmation(request)` returns a PauseRequest;
 * the action returns it, and the run loop turns it into a checkpoint, a `confirmation_request`
 * event and an interrupt (docs/execution-model.md "Pausing for a confirmation"). Nothing is
 * thrown, so no catch site has to know about pausing.
 *
 * Only this module makes one, and it remembers what it made: a model's JSON or a tool result that
 * looks like a pause request is plain data, never a pause.
 */
import type { ConfirmationRequest, PauseRequest } from '../core/action.js';

const made = new WeakSet<object>();

export function pauseRequest(confirmation: ConfirmationRequest): PauseRequest {
  const value: PauseRequest = Object.freeze({ kind: 'pause_request', confirmation });
  made.add(value);
  return value;
}

export function isPauseRequest(value: unknown): value is PauseRequest {
  return typeof value === 'object' && value !== null && made.has(value);
}
