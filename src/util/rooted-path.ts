/**
 * Paths inside a host root (the file seam and agent files as sub-runs): one normaliser, so every
 * host refuses the same class of paths. A rooted path is `a/b/c.txt`: forward slashes, no empty,
 * `.` or `..` segments, nothing that a host could read as leaving the root. Refused, whatever the
 * host: absolute paths (`/x`, `\\server`), drive letters (`C:`), backslashes, `..`, NUL and other
 * control characters, URL encoding (`%2e%2e`, so no host decodes a second time) and URL schemes
 * (`s3://`, `file:`). A leading `./` and repeated `/` are tidied, as TEA's examples write them.
 */
import { AgentError } from '../core/agent-error.js';
import { cutText, quoteText } from './cut-text.js';

/** Longest path accepted (characters) and deepest nesting: roomy for real files, small for hostile ones. */
export const MAX_PATH_LENGTH = 512;
export const MAX_PATH_DEPTH = 32;

/** Why `path` may not be used under a root, or undefined when it may. */
export function rootedPathRefusal(path: string): string | undefined {
  if (path.length === 0) return 'empty';
  if (path.length > MAX_PATH_LENGTH) return `longer than ${MAX_PATH_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'a control character (NUL, newline, …)';
  if (path.includes('\\')) return 'a backslash (write /)';
  if (path.includes('%')) return '% (URL encoding)';
  if (/^[A-Za-z]:/.test(path)) return 'a drive letter';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) return 'a URL';
  if (path.startsWith('/')) return 'absolute';
  const segments = path.split('/');
  if (segments.includes('..')) return "'..' (paths never leave the root)";
  if (segments.filter((segment) => segment !== '' && segment !== '.').length === 0) return 'names no file';
  if (segments.length > MAX_PATH_DEPTH) return `deeper than ${MAX_PATH_DEPTH} folders`;
  return undefined;
}

/**
 * The normal form of a path inside the root (`./a//b.txt` → `a/b.txt`), or an INVALID_PARAMS
 * error naming `field` and why.
 */
export function normalizeRootedPath(path: unknown, field: string): string {
  if (typeof path !== 'string') throw new AgentError('INVALID_PARAMS', `\`${field}\` must be a path (text)`, { field });
  const refusal = rootedPathRefusal(path);
  if (refusal !== undefined)
    throw new AgentError('INVALID_PARAMS', `\`${field}\` ${quoteText(path, 80)} is refused: ${refusal}`, {
      field,
      details: { path: cutText(path, MAX_PATH_LENGTH) },
    });
  return path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
}

/** The folder of a rooted path (`a/b.yaml` → `a`, `b.yaml` → ``). */
export function rootedDirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `relative` (already checked) resolved inside `folder` of the root. */
export function joinRooted(folder: string, relative: string): string {
  return folder === '' ? relative : `${folder}/${relative}`;
}
