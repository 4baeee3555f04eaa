/**
 * Bearer tokens mapped to roles. With tokens configured, a request needs
 * `Authorization: Bearer <token>` (else 401 UNAUTHORIZED); the token's role is handed to the
 * engine for tool permissions, and the token's fingerprint with it is the owner of the runs it
 * starts (worker/run-access.ts). Tokens are compared in constant time.
 */
import type { RunOwner } from '../src/core/trace-store.js';
import { httpError } from './error-status.js';
import { ownerOf } from './run-access.js';

/** Resolves the caller of an Authorization header (its role, its token's fingerprint), or throws UNAUTHORIZED. */
export function roleOf(header: string | undefined, tokens: Readonly<Record<string, string>>): RunOwner {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (match === null) throw httpError('UNAUTHORIZED', 'this route needs an Authorization: Bearer <token> header');
  let role: string | undefined;
  for (const [token, tokenRole] of Object.entries(tokens)) {
    if (sameText(token, match[1]!)) role = tokenRole;
  }
  if (role === undefined) throw httpError('UNAUTHORIZED', 'the bearer token is not valid');
  return ownerOf(match[1]!, role);
}

/** Compares two strings in time that depends only on their lengths. */
function sameText(left: string, right: string): boolean {
  const a = new TextEncoder().encode(left);
  const b = new TextEncoder().encode(right);
  let difference = a.length ^ b.length;
  for (let index = 0; index < Math.max(a.length, b.length); index++) difference |= (a[index] ?? 0) ^ (b[index] ?? 0);
  return difference === 0;
}
