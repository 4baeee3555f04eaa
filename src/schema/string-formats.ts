/**
 * The `format` checks, written for this project so that none of them can backtrack: every check
 * is either a hand-written scan or a pattern run on the linear-time matcher (`compileSafePattern`).
 * @cfworker/json-schema's own format regexes (its `url` one hangs on 300 characters) are never
 * used. Unknown formats pass, as JSON Schema says (`format` is an annotation unless known).
 * Strings longer than `MAX_FORMAT_LENGTH` fail every known format: no date, address or pointer
 * worth checking is that long, and it keeps each check's cost small and fixed.
 */
import { compileSafePattern, type SafePattern } from './safe-pattern.js';

export const MAX_FORMAT_LENGTH = 8192;

type FormatCheck = (text: string, patterns: FormatPatterns) => boolean;

const HEX = '[0-9A-Fa-f]';
const PCT = `%${HEX}{2}`;
const UNRESERVED_SUB = "A-Za-z0-9\\-._~!$&'()*+,;=";
const URI_REST = `(?:[${UNRESERVED_SUB}:@/?#\\[\\]]|${PCT})*`;
const URI = `^[A-Za-z][A-Za-z0-9+.\\-]*:${URI_REST}$`;
const URI_REFERENCE = `^(?:[A-Za-z][A-Za-z0-9+.\\-]*:)?${URI_REST}$`;
const URI_TEMPLATE_VARIABLE = `(?:[A-Za-z0-9_]|${PCT})+(?:\\.(?:[A-Za-z0-9_]|${PCT})+)*(?::[1-9][0-9]{0,3}|\\*)?`;
const URI_TEMPLATE = `^(?:[^\\x00-\\x20\\x7F"'<>\\\\^\`{|}%]|${PCT}|\\{[+#./;?&=,!@|]?${URI_TEMPLATE_VARIABLE}(?:,${URI_TEMPLATE_VARIABLE})*\\})*$`;
const UUID = `^${HEX}{8}-${HEX}{4}-${HEX}{4}-${HEX}{4}-${HEX}{12}$`;
const JSON_POINTER = '^(?:/(?:[^~/]|~[01])*)*$';
const JSON_POINTER_FRAGMENT = `^#(?:/(?:[A-Za-z0-9_\\-.!$&'()*+,;:=@]|${PCT}|~[01])*)*$`;
const RELATIVE_JSON_POINTER = '^(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~[01])*)*)$';
const DURATION = '^P(?:[0-9]+W|(?:[0-9]+Y)?(?:[0-9]+M)?(?:[0-9]+D)?(?:T(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+S)?)?)$';
const EMAIL_LOCAL =
  '^(?:[A-Za-z0-9!#$%&\'*+/=?^_`{|}~\\-]+(?:\\.[A-Za-z0-9!#$%&\'*+/=?^_`{|}~\\-]+)*|"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\[\\x20-\\x7E])*")$';

/**
 * The format patterns of one compiled schema, compiled on first use (the URI ones take a few
 * milliseconds). Owned by one compiled schema, so no state is shared between schemas or runs.
 */
export class FormatPatterns {
  private readonly compiled = new Map<string, SafePattern>();

  test(source: string, text: string): boolean {
    let pattern = this.compiled.get(source);
    if (pattern === undefined) {
      pattern = compileSafePattern(source);
      this.compiled.set(source, pattern);
    }
    return pattern.test(text);
  }
}

const FORMATS: Readonly<Record<string, FormatCheck>> = Object.freeze({
  date: isDate,
  time: isTime,
  'date-time': isDateTime,
  duration: (text, patterns) => patterns.test(DURATION, text) && !text.endsWith('T') && text !== 'P',
  uri: (text, patterns) => patterns.test(URI, text),
  'uri-reference': (text, patterns) => patterns.test(URI_REFERENCE, text),
  'uri-template': (text, patterns) => patterns.test(URI_TEMPLATE, text),
  url: isWebUrl,
  email: isEmail,
  hostname: isHostname,
  ipv4: isIpv4,
  ipv6: isIpv6,
  regex: isEcmaRegex,
  uuid: (text, patterns) => patterns.test(UUID, text),
  'json-pointer': (text, patterns) => patterns.test(JSON_POINTER, text),
  'json-pointer-uri-fragment': (text, patterns) => patterns.test(JSON_POINTER_FRAGMENT, text),
  'relative-json-pointer': (text, patterns) => patterns.test(RELATIVE_JSON_POINTER, text),
});

/** True for the formats this validator checks; others are annotations and always pass. */
export function isKnownFormat(name: string): boolean {
  return Object.hasOwn(FORMATS, name);
}

/** Checks `text` against a known format; texts longer than MAX_FORMAT_LENGTH fail every one. */
export function checkFormat(name: string, text: string, patterns: FormatPatterns): boolean {
  return isKnownFormat(name) && text.length <= MAX_FORMAT_LENGTH && FORMATS[name]!(text, patterns);
}

function digitsAt(text: string, start: number, count: number): number | undefined {
  let value = 0;
  for (let index = start; index < start + count; index += 1) {
    const code = text.charCodeAt(index);
    if (!(code >= 48 && code <= 57)) return undefined;
    value = value * 10 + (code - 48);
  }
  return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD`, a real calendar day. */
function isDate(text: string): boolean {
  if (text.length !== 10 || text[4] !== '-' || text[7] !== '-') return false;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (year === undefined || month === undefined || day === undefined || month < 1 || month > 12 || day < 1)
    return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** `HH:MM:SS[.fraction](Z|±HH:MM)`; a leap second only at 23:59:60 UTC. */
function isTime(text: string): boolean {
  if (text.length < 9 || text[2] !== ':' || text[5] !== ':') return false;
  const hour = digitsAt(text, 0, 2);
  const minute = digitsAt(text, 3, 2);
  const second = digitsAt(text, 6, 2);
  if (hour === undefined || minute === undefined || second === undefined || hour > 23 || minute > 59 || second > 60)
    return false;
  let index = 8;
  if (text[index] === '.') {
    index += 1;
    const start = index;
    while (index < text.length && text.charCodeAt(index) >= 48 && text.charCodeAt(index) <= 57) index += 1;
    if (index === start) return false;
  }
  let offsetMinutes = 0;
  const zone = text.slice(index);
  if (zone !== 'Z' && zone !== 'z') {
    if (zone.length !== 6 || (zone[0] !== '+' && zone[0] !== '-') || zone[3] !== ':') return false;
    const offsetHour = digitsAt(zone, 1, 2);
    const offsetMinute = digitsAt(zone, 4, 2);
    if (offsetHour === undefined || offsetMinute === undefined || offsetHour > 23 || offsetMinute > 59) return false;
    offsetMinutes = (zone[0] === '+' ? 1 : -1) * (offsetHour * 60 + offsetMinute);
  }
  if (second < 60) return true;
  const utcMinute = (((hour * 60 + minute - offsetMinutes) % 1440) + 1440) % 1440;
  return utcMinute === 23 * 60 + 59;
}

function isDateTime(text: string): boolean {
  const separator = text[10];
  return (
    (separator === 'T' || separator === 't' || separator === ' ') && isDate(text.slice(0, 10)) && isTime(text.slice(11))
  );
}

/**
 * An http, https or ftp URL whose host is a DNS name, an IPv4 address or a bracketed IPv6
 * address, read by the WHATWG URL parser (a linear scan, built into every runtime).
 */
function isWebUrl(text: string): boolean {
  if (!/^(?:https?|ftp):\/\//i.test(text) || /[\s<>"`{}|\\^]/.test(text)) return false;
  let host: string;
  try {
    host = new URL(text).hostname;
  } catch {
    return false;
  }
  if (host.startsWith('[') && host.endsWith(']')) return isIpv6(host.slice(1, -1));
  return isIpv4(host) || (isHostname(host) && host.includes('.'));
}

function isEmail(text: string, patterns: FormatPatterns): boolean {
  const at = text.lastIndexOf('@');
  if (at <= 0) return false;
  const local = text.slice(0, at);
  const host = text.slice(at + 1);
  if (local.length > 64 || host.length > 253 || !patterns.test(EMAIL_LOCAL, local)) return false;
  if (host.startsWith('[') && host.endsWith(']')) {
    const address = host.slice(1, -1);
    return /^ipv6:/i.test(address) ? isIpv6(address.slice(5)) : isIpv4(address);
  }
  return isHostname(host);
}

function isHostname(text: string): boolean {
  if (text.length === 0 || text.length > 253) return false;
  for (const label of text.split('.')) {
    if (label.length === 0 || label.length > 63 || label.startsWith('-') || label.endsWith('-')) return false;
    for (let index = 0; index < label.length; index += 1) {
      const code = label.charCodeAt(index) | 0x20;
      if (
        !(
          (code >= 97 && code <= 122) ||
          (label.charCodeAt(index) >= 48 && label.charCodeAt(index) <= 57) ||
          label[index] === '-'
        )
      )
        return false;
    }
  }
  return true;
}

function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return (
    parts.length === 4 &&
    parts.every(
      (part) =>
        part.length >= 1 && part.length <= 3 && digitsAt(part, 0, part.length) !== undefined && Number(part) <= 255,
    )
  );
}

function isHexGroup(group: string): boolean {
  return group.length >= 1 && group.length <= 4 && [...group].every((character) => /[0-9A-Fa-f]/.test(character));
}

/** Eight hex groups, `::` standing for one or more zero groups once, an IPv4 tail allowed. */
function isIpv6(text: string): boolean {
  if (text.length > 45) return false;
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groupsOf = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  const all = [...head, ...tail];
  let count = all.length;
  const last = all[all.length - 1];
  if (last?.includes('.')) {
    if (!isIpv4(last)) return false;
    all.pop();
    count += 1; // an IPv4 tail fills two groups
  }
  if (!all.every(isHexGroup)) return false;
  return halves.length === 2 ? count <= 7 : count === 8;
}

/** A regular expression in ECMAScript syntax: compiled only, never run. */
function isEcmaRegex(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch {
    return false;
  }
}
