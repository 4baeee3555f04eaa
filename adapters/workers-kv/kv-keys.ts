/**
 * Key names for the Workers KV layout. Every key stays under KV's 512-byte limit whatever the run
 * or agent name: names that are short and plain are used as they are (readable in the dashboard),
 * anything else becomes `~` + its SHA-256 (WebCrypto). `~` never appears in a plain name, so the
 * two forms cannot collide.
 *
 * Layout (after the configurable prefix, default `tea:`):
 *   run:<run>                         the run record (+ the chunk list), JSON
 *   ev:<run>:<first seq>:<part>:<of>  a piece of an NDJSON batch of events
 *   ix:<inverted created_at>:<inverted run>:<run>          every run, newest first
 *   ia:<agent>:<inverted created_at>:<inverted run>:<run>  the runs of one agent, newest first
 *   cp:<run>                          the latest checkpoint
 *   cl:<run>:<checkpoint>             a resume claim (random token)
 *   in:<agent>                        the reviewer's insights for an agent
 */

const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,96}$/;
const SEQ_WIDTH = 12;

/** A name usable inside a key: itself when short and plain, otherwise `~<sha-256 hex>`. */
export async function keyPart(name: string): Promise<string> {
  if (PLAIN_NAME.test(name) && name !== '.' && name !== '..') return name;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(name));
  return '~' + [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A fixed-width number so that lexicographic key order is numeric order. */
export function padNumber(value: number, width = SEQ_WIDTH): string {
  return String(Math.max(0, Math.floor(value))).padStart(width, '0');
}

/**
 * An inverted timestamp: later times give smaller strings, so KV's ascending `list` order is
 * newest first. Milliseconds since the epoch subtracted from a ceiling far in the future.
 */
export function invertedTime(isoTime: string): string {
  const millis = Date.parse(isoTime);
  const safe = Number.isFinite(millis) ? millis : 0;
  return padNumber(99_999_999_999_999 - safe, 14);
}

/** Reads the creation time (epoch ms) back out of an inverted timestamp. */
export function timeFromInverted(inverted: string): number {
  return 99_999_999_999_999 - Number(inverted);
}

/**
 * A name whose ascending key order is the name's descending order (the tie-break of runs created
 * in the same millisecond): each character as two hex digits of 255 minus its code, then `z`,
 * which sorts after every hex digit so that a name sorts after its own extensions.
 */
export function invertedName(name: string): string {
  let inverted = '';
  for (const character of name)
    inverted += (255 - Math.min(255, character.charCodeAt(0))).toString(16).padStart(2, '0');
  return inverted + 'z';
}

/** The keys of one run, given its key part and its agent's key part. */
export interface RunKeys {
  record: string;
  eventsPrefix: string;
  checkpoint: string;
  claimPrefix: string;
}

export function runKeys(prefix: string, run: string): RunKeys {
  return {
    record: `${prefix}run:${run}`,
    eventsPrefix: `${prefix}ev:${run}:`,
    checkpoint: `${prefix}cp:${run}`,
    claimPrefix: `${prefix}cl:${run}:`,
  };
}

/** The global and per-agent index keys of a run. */
export function indexKeys(
  prefix: string,
  agent: string,
  run: string,
  createdAt: string,
): { all: string; agent: string } {
  const order = `${invertedTime(createdAt)}:${invertedName(run)}:${run}`;
  return { all: `${prefix}ix:${order}`, agent: `${prefix}ia:${agent}:${order}` };
}

/** The key of one piece of an event batch. */
export function eventPieceKey(eventsPrefix: string, firstSeq: number, piece: number, pieces: number): string {
  return `${eventsPrefix}${padNumber(firstSeq)}:${padNumber(piece, 4)}:${padNumber(pieces, 4)}`;
}

/** Parses an event piece key back into its batch, piece number and piece count. */
export function parseEventPieceKey(
  key: string,
  eventsPrefix: string,
): { firstSeq: number; piece: number; pieces: number } | undefined {
  const match = /^(\d+):(\d+):(\d+)$/.exec(key.slice(eventsPrefix.length));
  if (match === null) return undefined;
  return { firstSeq: Number(match[1]), piece: Number(match[2]), pieces: Number(match[3]) };
}
