/**
 * The seam scenarios (tests/actions/seam-scenarios.ts) inside Deno, over its file system with
 * Deno's permissions (adapters/deno-fs/deno-file-store.ts). Bundled and spawned by
 * tests/deno/file-seams.test.ts:
 *   deno run --allow-read=<dir> --allow-write=<dir>/files file-seams.js <agents.json> <dir>
 * Prints one JSON line: the scenario outcomes, what a symbolic link out of the root and a folder
 * without write permission give, what a store the host did not accept the racy walk for gives, and
 * how many warnings the accepted ones printed (one each).
 */
import { createDenoFileStore, type DenoFsLike } from '../../adapters/deno-fs/deno-file-store.js';
import { runSeamScenarios } from '../actions/seam-scenarios.js';

declare const Deno: DenoFsLike & { args: string[]; readTextFile(path: string): Promise<string> };

const [agentsFile, directory] = Deno.args as [string, string];
const agents = JSON.parse(await Deno.readTextFile(agentsFile)) as Record<string, string>;
const warnings: string[] = [];
const accepted = { acceptRace: true, warn: (message: string) => warnings.push(message) };
const refused = (() => {
  try {
    createDenoFileStore(Deno, `${directory}/files`);
    return 'made';
  } catch (error) {
    return `${(error as { code?: string }).code}:${(error as { details?: { reason?: string } }).details?.reason}`;
  }
})();
const files = createDenoFileStore(Deno, `${directory}/files`, accepted);
const outcomes = await runSeamScenarios(files, agents);
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? String(error),
  );
const link = await codeOf(files.read('link.txt', 100));
const linkedFolder = await codeOf(files.write('outdir/new.txt', new TextEncoder().encode('x')));
const readOnly = await codeOf(
  createDenoFileStore(Deno, `${directory}/readonly`, accepted).write('a.txt', new TextEncoder().encode('x')),
);
console.log(JSON.stringify({ outcomes, link, linkedFolder, readOnly, refused, warnings }));
