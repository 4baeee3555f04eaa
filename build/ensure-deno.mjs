// Installs the `deno` binary the Deno tests run into .cache/deno/ (see build/deno.mjs); does
// nothing when it is there. Never writes into node_modules.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeno } from './deno.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
try {
  await ensureDeno(root);
} catch (error) {
  console.error(`ensure-deno: ${error.message}`);
  process.exit(1);
}
