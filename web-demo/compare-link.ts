/**
 * A comparison as a link: `#compare=<run id A>,<run id B>` in the page's address, written when two
 * runs are compared and read when the page opens, so a comparison can be bookmarked, reloaded or
 * shared with someone who has the same history (the same server).
 */
const PREFIX = '#compare=';

/** The two run ids in an address hash, or undefined. */
export function compareIdsOf(hash: string): [string, string] | undefined {
  if (!hash.startsWith(PREFIX)) return undefined;
  const ids = hash
    .slice(PREFIX.length)
    .split(',')
    .map((id) => decodeURIComponent(id.trim()));
  return ids.length === 2 && ids.every((id) => id !== '') && ids[0] !== ids[1] ? [ids[0]!, ids[1]!] : undefined;
}

export function compareHash(a: string, b: string): string {
  return `${PREFIX}${encodeURIComponent(a)},${encodeURIComponent(b)}`;
}

/** Puts the comparison in the address, or takes it out (another hash is left alone); no new history entry. */
export function showCompareInAddress(ids: [string, string] | undefined): void {
  if (!ids && compareIdsOf(location.hash) === undefined) return;
  const url = new URL(location.href);
  url.hash = ids ? compareHash(...ids) : '';
  history.replaceState(history.state, '', url.href);
}
