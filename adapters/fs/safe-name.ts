/**
 * File names for run ids and agent names. Any string maps to one portable file name: lowercase
 * ASCII letters, digits and `-` stay as they are; every other UTF-8 byte becomes `_xx` (hex), so
 * the mapping is injective and safe on case-insensitive file systems; Windows device names get a
 * `_` prefix; names longer than 120 characters keep a prefix and end in `~` + SHA-256 of the name.
 */
import { createHash } from 'node:crypto';

const MAX_NAME_LENGTH = 120;
const DEVICE_NAMES = /^(con|prn|aux|nul|com\d|lpt\d)$/;

/**
 * The file name for an id.
 *
 * @example
 * safeName('Run 1/a') // '_52un_201_2fa'
 */
export function safeName(id: string): string {
  let name = '';
  for (const byte of new TextEncoder().encode(id)) {
    const isKept = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x2d;
    name += isKept ? String.fromCharCode(byte) : `_${byte.toString(16).padStart(2, '0')}`;
  }
  if (name === '' || DEVICE_NAMES.test(name)) name = `_${name}`;
  if (name.length > MAX_NAME_LENGTH) {
    name = `${name.slice(0, 40)}~${createHash('sha256').update(id, 'utf8').digest('hex')}`;
  }
  return name;
}
