/**
 * The error a run ends with, made safe to keep and show: secrets redacted, the message cut to
 * MAX_ERROR_MESSAGE characters and the details to MAX_DETAILS_BYTES. A Lua error of a megabyte
 * must not go whole into the run record, the `done` event or a terminal.
 */
import type { AgentErrorJson } from '../core/agent-error.js';
import { sanitizeData } from '../events/redact.js';
import { createSanitizer } from '../events/outbound.js';
import { cutText } from '../util/cut-text.js';
import { stringOf } from '../util/text-of.js';

export const MAX_ERROR_MESSAGE = 4000;
const MAX_DETAILS_BYTES = 12 * 1024;

export function capRunError(error: AgentErrorJson, secrets: readonly string[]): AgentErrorJson {
  const { details, ...core } = error;
  // Redacted before it is cut (cutText): a cut must not leave the start of a secret.
  core.message = cutText(core.message, MAX_ERROR_MESSAGE, createSanitizer(secrets).secrets);
  // The event sanitiser redacts, makes inert and cuts the longest strings to a byte cap; the
  // error is rebuilt from its texts (the code is one of ours, line and column are numbers).
  const cleaned = clean(core, secrets, MAX_ERROR_MESSAGE * 4);
  const capped: AgentErrorJson = {
    code: core.code,
    message: stringOf(cleaned['message']) ?? 'the error message was removed (too large)',
  };
  for (const key of TEXT_PLACES) {
    const text = stringOf(cleaned[key]);
    if (text !== undefined) capped[key] = text;
  }
  if (core.line !== undefined) capped.line = core.line;
  if (core.column !== undefined) capped.column = core.column;
  if (details === undefined) return capped;
  const cleanDetails = clean(details, secrets, MAX_DETAILS_BYTES);
  // Details too structured to cut string by string are replaced by the sanitiser's summary.
  capped.details = cleanDetails.truncated === true ? { truncated: true } : cleanDetails;
  return capped;
}

const TEXT_PLACES = ['file', 'node', 'field'] as const;

function clean(
  data: Record<string, unknown>,
  secrets: readonly string[],
  maxEventBytes: number,
): Record<string, unknown> {
  return sanitizeData(data, { secrets, maxEventBytes });
}
