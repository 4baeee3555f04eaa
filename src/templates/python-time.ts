/** Time as TEA's Python prints it. */

/**
 * `datetime.utcnow().isoformat() + "Z"` for a time in milliseconds: `2026-11-23T18:59:19.123000Z`,
 * or without the fraction when it is zero (Python's isoformat leaves out zero microseconds).
 */
export function pythonUtcIso(milliseconds: number): string {
  if (!Number.isFinite(milliseconds)) throw new RangeError(`not a time: ${milliseconds}`);
  const iso = new Date(Math.floor(milliseconds)).toISOString(); // 2026-11-23T18:59:19.123Z
  const fraction = iso.slice(20, 23);
  return fraction === '000' ? `${iso.slice(0, 19)}Z` : `${iso.slice(0, 19)}.${fraction}000Z`;
}
