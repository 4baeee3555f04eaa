/**
 * The egress rule of `http.get` (security catalogue AG-08): a URL may be fetched only when the
 * agent's `settings.http.allow` lists its exact origin (scheme, host and port), and a private,
 * loopback, link-local or otherwise internal address is refused unless that exact origin is
 * listed. Hosts are compared after WHATWG URL normalisation, so decimal, hex and octal IPv4 forms
 * (`2130706433`, `0x7f.1`) and IPv6 forms (`[::ffff:127.0.0.1]`) are seen as the addresses they are.
 */
import { quoteText } from '../util/cut-text.js';

export type UrlDecision = { allowed: true; url: URL } | { allowed: false; reason: string };

/**
 * Decides whether `url` may be fetched under an allow-list of origins.
 *
 * @example checkUrl('https://api.example.com/x', ['https://api.example.com']) // → {allowed: true, …}
 */
export function checkUrl(url: string, allow: readonly string[]): UrlDecision {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { allowed: false, reason: `not a valid absolute URL: ${quoteText(url, 200)}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { allowed: false, reason: `scheme '${parsed.protocol}' is not allowed (only http and https)` };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { allowed: false, reason: 'URLs with credentials are not allowed' };
  }
  const origin = originKey(parsed);
  const listed = allow.some((entry) => {
    const entryOrigin = allowEntryKey(entry);
    return entryOrigin !== undefined && entryOrigin === origin;
  });
  if (!listed) {
    const internal = isInternalHost(parsed.hostname);
    return {
      allowed: false,
      reason: internal
        ? `${origin} is a private or loopback address and is not listed in settings.http.allow`
        : `${origin} is not listed in settings.http.allow`,
    };
  }
  return { allowed: true, url: parsed };
}

/** `scheme://host:port` with the default port spelled out. */
export function originKey(url: URL): string {
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  return `${url.protocol}//${url.hostname.toLowerCase()}:${port}`;
}

function allowEntryKey(entry: unknown): string | undefined {
  if (typeof entry !== 'string') return undefined;
  try {
    const parsed = new URL(entry);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return originKey(parsed);
  } catch {
    return undefined;
  }
}

/**
 * True for hosts that name this machine or a private network: `localhost` (and `*.localhost`),
 * IPv4 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.168/16, 198.18/15, multicast and
 * reserved; IPv6 `::`, `::1`, fc00::/7, fe80::/10, multicast, and IPv4-mapped/compatible forms of
 * the IPv4 ranges. The hostname is expected in WHATWG-normalised form (from `new URL`).
 */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))
    return true;
  if (host.startsWith('[') && host.endsWith(']')) return isInternalIpv6(host.slice(1, -1));
  const ipv4 = parseIpv4(host);
  return ipv4 !== undefined && isInternalIpv4(ipv4);
}

function parseIpv4(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) return undefined;
  return parts.map(Number);
}

function isInternalIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a! >= 224
  );
}

function isInternalIpv6(address: string): boolean {
  const groups = expandIpv6(address);
  if (groups === undefined) return true; // unparseable: refuse
  if (groups.every((group) => group === 0)) return true; // ::
  if (groups.slice(0, 7).every((group) => group === 0) && groups[7] === 1) return true; // ::1
  const first = groups[0]!;
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xff00) === 0xff00) return true; // multicast
  const mapped = groups.slice(0, 5).every((group) => group === 0) && (groups[5] === 0xffff || groups[5] === 0);
  if (mapped) {
    const high = groups[6]!;
    const low = groups[7]!;
    return isInternalIpv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  }
  if (first === 0x64 && groups[1] === 0xff9b) return true; // NAT64 of anything: refuse
  return false;
}

function expandIpv6(address: string): number[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (text: string): number[] | undefined => {
    if (text === '') return [];
    const groups: number[] = [];
    for (const piece of text.split(':')) {
      const ipv4 = parseIpv4(piece);
      if (ipv4 !== undefined) groups.push((ipv4[0]! << 8) | ipv4[1]!, (ipv4[2]! << 8) | ipv4[3]!);
      else if (/^[0-9a-f]{1,4}$/.test(piece)) groups.push(parseInt(piece, 16));
      else return undefined;
    }
    return groups;
  };
  const head = toGroups(halves[0]!);
  const tail = halves.length === 2 ? toGroups(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 0) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}
