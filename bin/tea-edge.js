#!/usr/bin/env node
// The tea-edge command line. The CLI itself is built into dist/cli.js (npm install runs the build).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write('tea-edge: dist/cli.js is missing; run `npm run build` in the tea-edge package first\n');
  process.exit(2);
}
// A reader that stops early (`tea-edge run … --stream | head`) is not an error worth a stack trace.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
