// Type declarations for the package's exports (dist/types), from tsc. Type errors are reported by
// `npm run typecheck`; here only the declaration files matter, so a failing check does not stop
// the build as long as every declared entry was written.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export default async function build({ root }) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of ['tsconfig.types.json', 'tsconfig.types-node.json']) {
    await run(process.execPath, [tsc, '-p', project], { cwd: root }).catch(() => undefined);
  }
  const manifest = JSON.parse(
    await (await import('node:fs/promises')).readFile(path.join(root, 'package.json'), 'utf8'),
  );
  const missing = Object.values(manifest.exports)
    .filter((target) => typeof target === 'object' && target.types)
    .map((target) => target.types)
    .filter((types) => !existsSync(path.join(root, types)));
  if (missing.length > 0) throw new Error(`type declarations missing after tsc: ${missing.join(', ')}`);
}
