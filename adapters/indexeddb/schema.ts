/**
 * The IndexedDB schema of the trace and checkpoint stores, and its upgrade path.
 *
 * Version 1 (the first layout): `runs` (key run_id, index `created_at`), `events` (key
 * [run_id, seq], one record per event, the event itself), `checkpoints` (key run_id).
 *
 * Version 2 (current): `runs` gains the listing indexes `by_created` [created_at, run_id],
 * `by_agent_created` [agent, created_at, run_id] and `by_updated` (retention), loses `created_at`,
 * and every record gets an `updated_at`; `events` holds one record per written batch
 * (`{run_id, seq: first seq, last_seq, count, json}` with the events as one JSON array text, so a
 * batch is one put and reads come back as inert JSON); `checkpoints` holds `{run_id,
 * checkpoint_id, json}`; new stores `insights` (key agent) and `meta` (out-of-line keys, claims).
 * `upgradeDatabase` walks from any older version to the current one inside the versionchange
 * transaction, so a database left by an older build is migrated in place.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction } from 'idb';

export const DB_VERSION = 2;
export const DEFAULT_DB_NAME = 'tea-edge-traces';

/** One batch of events of a run. */
export interface EventChunk {
  run_id: string;
  /** Smallest seq in the batch (the key's second part). */
  seq: number;
  last_seq: number;
  count: number;
  /** The events as a JSON array text. */
  json: string;
}

export interface StoredRun {
  run_id: string;
  agent: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export interface TraceDatabase extends DBSchema {
  runs: {
    key: string;
    value: StoredRun;
    indexes: { by_created: [string, string]; by_agent_created: [string, string, string]; by_updated: string };
  };
  events: { key: [string, number]; value: EventChunk };
  checkpoints: { key: string; value: { run_id: string; checkpoint_id: string; json: string } };
  insights: { key: string; value: { agent: string; json: string } };
  meta: { key: IDBValidKey; value: unknown };
}

/** The database as the upgrade sees it: any version, no static schema. */
type AnyDatabase = IDBPDatabase<unknown>;
type AnyUpgradeTransaction = IDBPTransaction<unknown, string[], 'versionchange'>;

/** Creates the version 1 layout (kept so every database walks the same path). */
function createVersion1(database: AnyDatabase): void {
  const runs = database.createObjectStore('runs', { keyPath: 'run_id' });
  runs.createIndex('created_at', 'created_at');
  database.createObjectStore('events', { keyPath: ['run_id', 'seq'] });
  database.createObjectStore('checkpoints', { keyPath: 'run_id' });
}

/** Version 1 → 2: new indexes and stores, event batches, JSON-text checkpoints. */
async function upgradeToVersion2(database: AnyDatabase, transaction: AnyUpgradeTransaction): Promise<void> {
  const runs = transaction.objectStore('runs');
  if (runs.indexNames.contains('created_at')) runs.deleteIndex('created_at');
  runs.createIndex('by_created', ['created_at', 'run_id']);
  runs.createIndex('by_agent_created', ['agent', 'created_at', 'run_id']);
  runs.createIndex('by_updated', 'updated_at');
  database.createObjectStore('insights', { keyPath: 'agent' });
  database.createObjectStore('meta');

  for (let cursor = await runs.openCursor(); cursor; cursor = await cursor.continue()) {
    const record = cursor.value as Record<string, unknown>;
    if (typeof record.updated_at !== 'string' && typeof record.created_at === 'string') {
      await cursor.update({ ...record, updated_at: record.created_at });
    }
  }
  const events = transaction.objectStore('events');
  for (let cursor = await events.openCursor(); cursor; cursor = await cursor.continue()) {
    const event = cursor.value as Record<string, unknown>;
    if (typeof event.json === 'string') continue;
    const chunk: EventChunk = {
      run_id: String(event.run_id),
      seq: Number(event.seq),
      last_seq: Number(event.seq),
      count: 1,
      json: JSON.stringify([event]),
    };
    await cursor.update(chunk);
  }
  const checkpoints = transaction.objectStore('checkpoints');
  for (let cursor = await checkpoints.openCursor(); cursor; cursor = await cursor.continue()) {
    const checkpoint = cursor.value as Record<string, unknown>;
    if (typeof checkpoint.json === 'string') continue;
    await cursor.update({
      run_id: checkpoint.run_id,
      checkpoint_id: checkpoint.checkpoint_id,
      json: JSON.stringify(checkpoint),
    });
  }
}

/**
 * Brings a database from `oldVersion` to `DB_VERSION` inside the versionchange transaction. Only
 * IndexedDB requests of that transaction are awaited, so it stays alive throughout; a failure
 * aborts the upgrade and leaves the old version untouched.
 */
export async function upgradeDatabase(
  database: AnyDatabase,
  oldVersion: number,
  transaction: AnyUpgradeTransaction,
): Promise<void> {
  if (oldVersion < 1) createVersion1(database);
  if (oldVersion < 2) await upgradeToVersion2(database, transaction);
}
