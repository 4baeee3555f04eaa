/**
 * Small diffs for the studio: a line diff (longest common subsequence; reflection candidates,
 * self-correct rounds) and a key-level diff of two states (a node's state before and after).
 */

export type DiffLine = { kind: 'same' | 'added' | 'removed'; text: string };

/** Lines past this many on either side are compared as one block (the table is n×m). */
const MAX_LINES = 2000;

/** The lines of `after` against `before`: kept, added and removed, in order. */
export function diffLines(before: string, after: string): DiffLine[] {
  return diffSequence(before.split('\n'), after.split('\n'));
}

/** Two lists of strings (lines, a run's node names) aligned: kept, added and removed, in order. */
export function diffSequence(a: readonly string[], b: readonly string[]): DiffLine[] {
  if (a.length > MAX_LINES || b.length > MAX_LINES) {
    const same = a.length === b.length && a.every((text, index) => text === b[index]);
    return same
      ? a.map((text) => ({ kind: 'same', text }))
      : [
          ...a.map((text) => ({ kind: 'removed' as const, text })),
          ...b.map((text) => ({ kind: 'added' as const, text })),
        ];
  }
  // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
  const lengths: Uint16Array[] = Array.from({ length: a.length + 1 }, () => new Uint16Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) lines.push({ kind: 'removed', text: a[i++]! });
    else lines.push({ kind: 'added', text: b[j++]! });
  }
  while (i < a.length) lines.push({ kind: 'removed', text: a[i++]! });
  while (j < b.length) lines.push({ kind: 'added', text: b[j++]! });
  return lines;
}

export type StateChange = {
  key: string;
  kind: 'added' | 'removed' | 'changed' | 'same';
  before?: unknown;
  after?: unknown;
};

/** Top-level keys of two states: added, removed, changed (by JSON value) and unchanged. */
export function diffState(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
): StateChange[] {
  const left = before ?? {};
  const right = after ?? {};
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
  return keys.map((key): StateChange => {
    const has = [key in left, key in right];
    if (!has[0]) return { key, kind: 'added', after: right[key] };
    if (!has[1]) return { key, kind: 'removed', before: left[key] };
    return JSON.stringify(left[key]) === JSON.stringify(right[key])
      ? { key, kind: 'same', before: left[key], after: right[key] }
      : { key, kind: 'changed', before: left[key], after: right[key] };
  });
}
