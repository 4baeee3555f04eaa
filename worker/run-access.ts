/**
 * Who may fork or resume a run. On a host with bearer tokens every run records its owner (the
 * role and a fingerprint of the token that started it; RunRecord.owner), and `POST
 * /runs/:id/resume` and `POST /runs/:id/fork` are answered only for that same token or for a role
 * the host names (`auth.adminRoles`, default `admin`; ADMIN_ROLES / TEA_ADMIN_ROLES): anyone else
 * gets 403 FORBIDDEN before anything is read from the body or written. A run with no owner on such
 * a host (started before owners were recorded, or by the host itself) is an admin's only. Without
 * tokens there are no callers to tell apart: every request may fork and resume every run.
 *
 * The check runs once, in the app, before every host's routes (in the request, in the process,
 * Durable Objects, Deno): it reads the run's record (and, when no record is visible yet, its
 * latest checkpoint) from the app's stores.
 */
import type { MiddlewareHandler } from 'hono';
import type { CheckpointStore, RunOwner, TraceStore } from '../src/core/trace-store.js';
import { sha256Hex } from '../src/util/sha256.js';
import type { AppEnv } from './app.js';
import { httpError } from './error-status.js';

/** The roles that may fork and resume any run when the host names none. */
export const DEFAULT_ADMIN_ROLES: readonly string[] = ['admin'];

/** The owner a bearer token makes: its role and the first 16 hex digits of its SHA-256. */
export function ownerOf(token: string, role: string): RunOwner {
  return { role, caller: sha256Hex(`tea-edge caller\u0000${token}`).slice(0, 16) };
}

/** True when `caller` may fork or resume a run owned by `owner`. */
export function mayTakeOver(owner: RunOwner | undefined, caller: RunOwner, adminRoles: readonly string[]): boolean {
  if (adminRoles.includes(caller.role)) return true;
  return owner !== undefined && owner.caller === caller.caller;
}

const GUARDED = /^\/runs\/([^/]+)\/(resume|fork)$/;

/** The middleware that refuses a resume or fork by anyone but the run's owner or an admin role. */
export function runAccessGuard(
  stores: { traceStore: TraceStore; checkpointStore: CheckpointStore },
  adminRoles: readonly string[],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = c.get('owner');
    const match = c.req.method === 'POST' ? GUARDED.exec(new URL(c.req.url).pathname) : null;
    if (caller === undefined || match === null) return next();
    let runId: string;
    try {
      runId = decodeURIComponent(match[1]!);
    } catch {
      throw httpError('NOT_FOUND', 'no run with that id (the path is not valid percent-encoding)');
    }
    const owner = await recordedOwner(stores, runId);
    if (owner === 'unknown') return next(); // the route answers 404
    if (!mayTakeOver(owner, caller, adminRoles)) {
      throw httpError(
        'FORBIDDEN',
        `run '${runId}' was started by another caller; only its owner or a role of ${adminRoles.join(', ') || '(none)'} may ${match[2]} it`,
      );
    }
    return next();
  };
}

/** The run's owner (undefined: it has none), or `unknown` when neither a record nor a checkpoint is found. */
async function recordedOwner(
  stores: { traceStore: TraceStore; checkpointStore: CheckpointStore },
  runId: string,
): Promise<RunOwner | undefined | 'unknown'> {
  const record = await stores.traceStore.getRun(runId);
  if (record !== undefined) return record.owner;
  const checkpoint = await stores.checkpointStore.loadLatest(runId).catch(() => undefined);
  return checkpoint === undefined ? 'unknown' : checkpoint.owner;
}
