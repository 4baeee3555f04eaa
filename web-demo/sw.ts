/**
 * The service worker: caches the app shell (every file the build wrote, listed at build time)
 * on install, so after one visit the app loads with the network off. Same-origin GETs of the
 * shell are answered from the cache first; everything else (the model server, other origins)
 * goes to the network untouched. A new build has a new cache name; old caches are dropped.
 */

declare const __PRECACHE__: string[];
declare const __CACHE_NAME__: string;

interface ServiceWorkerScope {
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
}
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}

const worker = self as unknown as ServiceWorkerScope;
const shell = new Set(__PRECACHE__.map((path) => new URL(path, worker.registration.scope).href));
const indexUrl = new URL('index.html', worker.registration.scope).href;

worker.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(__CACHE_NAME__)
      .then((cache) => cache.addAll([...shell]))
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith('tea-edge-shell-') && name !== __CACHE_NAME__)
            .map((name) => caches.delete(name)),
        ),
      )
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  const isNavigation = request.mode === 'navigate' && url.href.startsWith(worker.registration.scope);
  const key = isNavigation && (url.href === worker.registration.scope || url.href.endsWith('/')) ? indexUrl : url.href;
  if (!shell.has(key) && !isNavigation) return;
  event.respondWith(
    caches.open(__CACHE_NAME__).then(async (cache) => {
      const cached = await cache.match(key);
      if (cached) return cached;
      try {
        return await fetch(request);
      } catch (error) {
        const fallback = isNavigation ? await cache.match(indexUrl) : undefined;
        if (fallback) return fallback;
        throw error;
      }
    }),
  );
});
