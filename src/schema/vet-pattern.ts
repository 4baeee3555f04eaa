/**
 * vetPattern: decides, before a schema is used, whether a `pattern` (or a `patternProperties`
 * key) is safe to run on untrusted strings with a backtracking regex engine.
 *
 * Refused (each is a shape that can take exponential or high-polynomial time):
 * - patterns that do not compile with the `u` flag (what @cfworker/json-schema uses);
 * - a repetition with an upper bound above 1 whose body can match strings of different lengths,
 *   unless every variable-length part of the body is followed (cyclically, across the boundary to
 *   the next iteration) by parts that cannot start with any character the variable part consumes,
 *   up to one that must consume a character (and, under a repetition, the same for every
 *   sequence). So `(a+)+`, `(a*)*`, `(\w+\s?)*`, `(.*a){9}` are refused and the
 *   delimited forms `([a-z]+\.)*`, `(\d+,)*`, `(\d+\.){3}` are accepted;
 * - an alternation inside such a repetition whose alternatives can match the same text at the
 *   same place: overlapping first characters (`(a|a)*`, `(\d|\w)+`, `(a|ab)*`) or an empty
 *   alternative, unless they are same-length character sequences that differ at some position;
 * - groups nested deeper than 64, patterns longer than `maxLength`.
 *
 * Limits (documented, not refused): polynomial backtracking of adjacent overlapping repetitions
 * outside a repetition (`\s+\s+$`, `.*x.*`) is accepted; it is bounded by the caps on instance
 * size. Unicode property escapes and back-references are treated as "any character", which can
 * only make the check stricter.
 */
import { CharSet } from './char-set.js';
import { parsePattern, PatternTooComplex, type PatternNode } from './parse-pattern.js';

export type PatternVerdict = { safe: true } | { safe: false; reason: string };

export interface VetPatternOptions {
  /** Longest accepted source, in UTF-16 units (default 4096). */
  maxLength?: number;
}

/**
 * Vets one regular expression source.
 * @example vetPattern('^(a+)+$') // {safe: false, reason: 'nested repetition ...'}
 */
export function vetPattern(source: string, options: VetPatternOptions = {}): PatternVerdict {
  const maxLength = options.maxLength ?? 4096;
  if (source.length > maxLength) return { safe: false, reason: `pattern longer than ${maxLength} characters` };
  try {
    new RegExp(source, 'u');
  } catch (error) {
    return { safe: false, reason: `invalid regular expression: ${(error as Error).message}` };
  }
  let tree: PatternNode;
  try {
    tree = parsePattern(source);
  } catch (error) {
    if (error instanceof PatternTooComplex) return { safe: false, reason: error.message };
    return { safe: false, reason: 'regular expression could not be analysed' };
  }
  const reason = findHazard(tree, false);
  return reason === undefined ? { safe: true } : { safe: false, reason };
}

/** Walks the tree; `repeated` is true under a repetition whose upper bound exceeds 1. */
function findHazard(node: PatternNode, repeated: boolean): string | undefined {
  switch (node.kind) {
    case 'chars':
    case 'assertion':
    case 'backreference':
      return undefined;
    case 'lookaround':
    case 'group':
      return findHazard(node.body, repeated);
    case 'sequence':
      if (repeated && !isDelimited(flatItems(node), false)) {
        return 'ambiguous sequence under a repetition: adjacent variable-length parts overlap';
      }
      for (const item of node.items) {
        const reason = findHazard(item, repeated);
        if (reason !== undefined) return reason;
      }
      return undefined;
    case 'alternation': {
      if (repeated) {
        const reason = alternationHazard(node.alternatives);
        if (reason !== undefined) return reason;
      }
      for (const alternative of node.alternatives) {
        const reason = findHazard(alternative, repeated);
        if (reason !== undefined) return reason;
      }
      return undefined;
    }
    case 'repeat': {
      const repeats = node.max > 1;
      if (repeats) {
        const reason = repetitionHazard(node.body);
        if (reason !== undefined) return reason;
      }
      return findHazard(node.body, repeated || repeats);
    }
  }
}

function repetitionHazard(body: PatternNode): string | undefined {
  const inner = unwrap(body);
  if (fixedLength(inner) !== undefined) return undefined;
  if (inner.kind === 'alternation') return 'nested repetition: a repeated alternation whose alternatives differ in length';
  if (!isDelimited(flatItems(inner), true)) {
    return 'nested repetition: a repeated part contains a variable-length part that is not delimited';
  }
  return undefined;
}

/**
 * True when every variable-length item is followed by parts that cannot start with any character
 * the item consumes, up to and including one that must consume a character, so the item's extent
 * is forced. `cyclic` also checks the last items against the first ones (the boundary between
 * two iterations of a repetition); otherwise the end of the sequence counts as a delimiter.
 */
function isDelimited(items: PatternNode[], cyclic: boolean): boolean {
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index]!;
    if (fixedLength(item) !== undefined) continue;
    let follow = CharSet.empty();
    let closed = false;
    for (let step = 1; step <= items.length; step += 1) {
      if (!cyclic && index + step >= items.length) {
        closed = true;
        break;
      }
      const following = items[(index + step) % items.length]!;
      follow = follow.union(firstSet(following));
      if (minLength(following) > 0) {
        closed = true;
        break;
      }
    }
    if (!closed || follow.overlaps(consumedSet(item))) return false;
  }
  return true;
}

/** The items of a sequence with groups spliced in and zero-width assertions left out. */
function flatItems(node: PatternNode): PatternNode[] {
  const inner = unwrap(node);
  if (inner.kind === 'assertion' || inner.kind === 'lookaround') return [];
  if (inner.kind === 'sequence') return inner.items.flatMap(flatItems);
  return [inner];
}

function alternationHazard(alternatives: PatternNode[]): string | undefined {
  if (alternatives.some((alternative) => minLength(alternative) === 0)) {
    return 'ambiguous alternation under a repetition: an alternative can match the empty string';
  }
  for (let left = 0; left < alternatives.length; left += 1) {
    for (let right = left + 1; right < alternatives.length; right += 1) {
      if (canMatchSameText(alternatives[left]!, alternatives[right]!)) {
        return 'ambiguous alternation under a repetition: alternatives overlap';
      }
    }
  }
  return undefined;
}

/** Conservative: false only when the two alternatives provably cannot start the same match. */
function canMatchSameText(left: PatternNode, right: PatternNode): boolean {
  if (!firstSet(left).overlaps(firstSet(right))) return false;
  const leftChars = charSequence(left);
  const rightChars = charSequence(right);
  if (leftChars === undefined || rightChars === undefined || leftChars.length !== rightChars.length) return true;
  return leftChars.every((set, index) => set.overlaps(rightChars[index]!));
}

/** The sets of a plain run of single characters (`abc`, `a[bc]d`), or undefined. */
function charSequence(node: PatternNode): CharSet[] | undefined {
  const inner = unwrap(node);
  if (inner.kind === 'chars') return [inner.set];
  if (inner.kind !== 'sequence') return undefined;
  const sets: CharSet[] = [];
  for (const item of inner.items) {
    const part = unwrap(item);
    if (part.kind !== 'chars') return undefined;
    sets.push(part.set);
  }
  return sets;
}

function unwrap(node: PatternNode): PatternNode {
  let current = node;
  while (current.kind === 'group') current = current.body;
  return current;
}

/** The length every match has, or undefined when matches can differ in length. */
export function fixedLength(node: PatternNode): number | undefined {
  switch (node.kind) {
    case 'chars':
      return 1;
    case 'assertion':
    case 'lookaround':
      return 0;
    case 'backreference':
      return undefined;
    case 'group':
      return fixedLength(node.body);
    case 'sequence': {
      let total = 0;
      for (const item of node.items) {
        const length = fixedLength(item);
        if (length === undefined) return undefined;
        total += length;
      }
      return total;
    }
    case 'alternation': {
      const lengths = node.alternatives.map(fixedLength);
      const first = lengths[0];
      return lengths.every((length) => length !== undefined && length === first) ? first : undefined;
    }
    case 'repeat': {
      const length = fixedLength(node.body);
      if (length === 0) return 0;
      if (length === undefined || node.min !== node.max) return undefined;
      return length * node.min;
    }
  }
}

function minLength(node: PatternNode): number {
  switch (node.kind) {
    case 'chars':
      return 1;
    case 'assertion':
    case 'lookaround':
    case 'backreference':
      return 0;
    case 'group':
      return minLength(node.body);
    case 'sequence':
      return node.items.reduce((total, item) => total + minLength(item), 0);
    case 'alternation':
      return Math.min(...node.alternatives.map(minLength));
    case 'repeat':
      return node.min * minLength(node.body);
  }
}

/** Every character the node can consume anywhere in a match. */
function consumedSet(node: PatternNode): CharSet {
  switch (node.kind) {
    case 'chars':
      return node.set;
    case 'assertion':
    case 'lookaround':
      return CharSet.empty();
    case 'backreference':
      return CharSet.all();
    case 'group':
    case 'repeat':
      return consumedSet(node.body);
    case 'sequence':
      return node.items.reduce((set, item) => set.union(consumedSet(item)), CharSet.empty());
    case 'alternation':
      return node.alternatives.reduce((set, item) => set.union(consumedSet(item)), CharSet.empty());
  }
}

/** The characters a non-empty match can start with. */
function firstSet(node: PatternNode): CharSet {
  switch (node.kind) {
    case 'chars':
      return node.set;
    case 'assertion':
    case 'lookaround':
      return CharSet.empty();
    case 'backreference':
      return CharSet.all();
    case 'group':
      return firstSet(node.body);
    case 'repeat':
      return node.max === 0 ? CharSet.empty() : firstSet(node.body);
    case 'sequence': {
      let set = CharSet.empty();
      for (const item of node.items) {
        set = set.union(firstSet(item));
        if (minLength(item) > 0) break;
      }
      return set;
    }
    case 'alternation':
      return node.alternatives.reduce((set, item) => set.union(firstSet(item)), CharSet.empty());
  }
}
