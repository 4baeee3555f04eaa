/**
 * The Workers KV stores against Miniflare's KV (the workerd implementation, with KV's key, value
 * and list limits enforced): the shared storage conformance suite, once with default sizes and
 * once with tiny values so every batch is cut into pieces.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll } from 'vitest';
import { createKvStores, type KVNamespaceLike } from '../../adapters/workers-kv/index.js';
import { describeTraceStoreConformance } from '../../src/testing/storage-conformance.js';

let miniflare: Miniflare;
let namespaceCount = 0;
const namespaces: KVNamespaceLike[] = [];

beforeAll(async () => {
  miniflare = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response("ok"); } };',
    kvNamespaces: Array.from({ length: 40 }, (_, index) => `KV${index}`),
    compatibilityDate: '2026-05-01',
  });
  await miniflare.ready;
  for (let index = 0; index < 40; index++)
    namespaces.push((await miniflare.getKVNamespace(`KV${index}`)) as unknown as KVNamespaceLike);
});

afterAll(async () => {
  await miniflare?.dispose();
});

/** A fresh, empty namespace per test (Miniflare namespaces cannot be created after start). */
function freshNamespace(): KVNamespaceLike {
  const namespace = namespaces[namespaceCount % namespaces.length]!;
  namespaceCount += 1;
  return namespace;
}

async function clear(namespace: KVNamespaceLike): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await namespace.list(cursor === undefined ? {} : { cursor });
    await Promise.all(page.keys.map((key) => namespace.delete(key.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
}

describeTraceStoreConformance('workers-kv (miniflare)', async () => {
  const namespace = freshNamespace();
  await clear(namespace);
  return createKvStores(namespace);
});

describeTraceStoreConformance('workers-kv (miniflare, 4 KiB values)', async () => {
  const namespace = freshNamespace();
  await clear(namespace);
  return createKvStores(namespace, { maxValueBytes: 4096, prefix: 'small/' });
});
