/**
 * Another process that swaps a folder for a symbolic link to an outside folder and back in a
 * tight loop until killed (issue 24 cause 2), repairing a folder a writer made meanwhile.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const SWAPPER = `
const fs = require('node:fs');
const [dir, real, outside] = process.argv.slice(1);
const quiet = (fn) => { try { fn(); } catch {} };
for (;;) {
  quiet(() => fs.renameSync(dir, real));
  quiet(() => fs.symlinkSync(outside, dir));
  quiet(() => { if (fs.lstatSync(dir).isSymbolicLink()) fs.unlinkSync(dir); else fs.rmSync(dir, { recursive: true, force: true }); });
  quiet(() => fs.renameSync(real, dir));
}
`;

/** Swaps `dir` (kept as `real` meanwhile) for a link to `outside`; kill the child to stop it. */
export function startFolderSwapper(dir: string, real: string, outside: string): ChildProcess {
  return spawn(process.execPath, ['-e', SWAPPER, dir, real, outside], { stdio: 'ignore' });
}
