/** The `deno` binary the Deno tests run: installed into .cache/deno/ by build/ensure-deno.mjs (never into node_modules). */
import path from 'node:path';
// @ts-expect-error plain ESM build helper without types
import { denoBinaryPath } from '../../build/deno.mjs';

export const DENO_BINARY: string = denoBinaryPath(path.resolve(import.meta.dirname, '../..'));
