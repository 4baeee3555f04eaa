/**
 * The Deno file root (adapters/deno-fs/deno-file-store.ts) against links, run inside Deno by
 * tests/deno/file-root-race.test.ts:
 *   deno run --allow-read=<base> --allow-write=<base> file-root-race.js <root> <rounds>
 * Prints one JSON line: what a hard link and a linked folder give, then the tallies of <rounds>
 * rounds of a read, a rewrite and a new file through `dir/` while the test swaps it for a link.
 */
import { createDenoFileStore, type DenoFsLike } from '../../adapters/deno-fs/deno-file-store.js';

declare const Deno: DenoFsLike & { args: string[] };

const [root, roundsText] = Deno.args as [string, string];
const files = createDenoFileStore(Deno, root, { acceptRace: true, warn: () => undefined });
const encode = (text: string) => new TextEncoder().encode(text);
// biome-ignore lint/suspicious/noConfusingVoidType: Deno's write promises resolve to void
const outcome = (promise: Promise<Uint8Array | undefined | void>) =>
  promise.then(
    (bytes) => (bytes === undefined ? 'done' : new TextDecoder().decode(bytes)),
    (error: { code?: string; details?: { reason?: string } }) =>
      `${error.code ?? String(error)}${error.details?.reason !== undefined ? `:${error.details.reason}` : ''}`,
  );
const statics = {
  hardRead: await outcome(files.read('hard.txt', 100)),
  hardWrite: await outcome(files.write('hard.txt', encode('overwritten'))),
  linkedFolderRead: await outcome(files.read('out/note.txt', 100)),
  linkedFolderWrite: await outcome(files.write('out/new.txt', encode('x'))),
  linkedFileRead: await outcome(files.read('link.txt', 100)),
  linkedFileWrite: await outcome(files.write('link.txt', encode('x'))),
};
// Tells the test to start swapping, then waits for its go.
console.log(JSON.stringify({ statics }));
const reads: Record<string, number> = {};
const writes: Record<string, number> = {};
const count = (tally: Record<string, number>, key: string) => (tally[key] = (tally[key] ?? 0) + 1);
for (let round = 0; round < Number(roundsText); round++) {
  const [read, rewrite, created] = await Promise.all([
    outcome(files.read('dir/note.txt', 100)),
    outcome(files.write('dir/target.txt', encode('written'))),
    outcome(files.write(`dir/new-${round}.txt`, encode('new'))),
  ]);
  count(reads, read);
  count(writes, rewrite);
  count(writes, created);
}
console.log(JSON.stringify({ reads, writes }));
