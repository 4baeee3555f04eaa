/**
 * The package version, read from package.json in this one place (CLI `--version`, the worker's
 * `/health`). A named import of one field: bundlers keep only `version`, not the whole manifest.
 */
import { version } from '../package.json';

export const VERSION: string = version;
