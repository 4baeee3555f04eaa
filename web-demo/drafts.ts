/**
 * Editor drafts, one per agent (keyed by the agent's `name:`), in IndexedDB (`tea-edge-drafts`),
 * so an edit survives a reload; the name of the last agent edited is kept in localStorage. A
 * browser without IndexedDB simply keeps no drafts.
 */
const DATABASE = 'tea-edge-drafts';
const STORE = 'drafts';
const LAST_KEY = 'tea-edge.last-draft';

export interface Draft {
  name: string;
  text: string;
  saved_at: string;
}

/** The agent name a YAML text declares (top-level `name:`), if any. */
export function agentNameOf(text: string): string | undefined {
  const match = /^name:\s*["']?([^"'#\n]+?)["']?\s*(?:#.*)?$/m.exec(text);
  return match?.[1];
}

let opened: Promise<IDBDatabase> | undefined;
function database(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'name' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB refused'));
  });
  return opened;
}

async function transact<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await database();
  return new Promise((resolve, reject) => {
    const request = run(db.transaction(STORE, mode).objectStore(STORE));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

/** Saves the draft of the agent the text names (nothing when it names none). */
export async function saveDraft(text: string, storage: Storage | undefined): Promise<void> {
  const name = agentNameOf(text);
  if (name === undefined) return;
  await transact('readwrite', (store) => store.put({ name, text, saved_at: new Date().toISOString() } satisfies Draft));
  storage?.setItem(LAST_KEY, name);
}

export function loadDraft(name: string): Promise<Draft | undefined> {
  return transact('readonly', (store) => store.get(name) as IDBRequest<Draft | undefined>).catch(() => undefined);
}

export function deleteDraft(name: string): Promise<void> {
  return transact('readwrite', (store) => store.delete(name)).then(
    () => undefined,
    () => undefined,
  );
}

/** The draft edited last, if any. */
/**
 * Marks `name` as the agent worked on last (an example was picked): the next visit restores its
 * draft when there is one, and otherwise keeps the picked example instead of an older draft.
 */
export function markLastAgent(storage: Storage | undefined, name: string): void {
  storage?.setItem(LAST_KEY, name);
}

export async function lastDraft(storage: Storage | undefined): Promise<Draft | undefined> {
  const name = storage?.getItem(LAST_KEY);
  return name ? loadDraft(name) : undefined;
}
