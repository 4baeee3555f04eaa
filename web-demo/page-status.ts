/**
 * The page's own state outside the run: the offline chip (offline, the tab's engine and the
 * scripted model still run; a server and model servers do not), the service worker (it caches the
 * whole shell, both engines and the editor: registered only once the page is up, so that download
 * does not slow the first visit), and the readiness marks tests and benchmarks read.
 */
export function watchOnline(chip: HTMLElement): void {
  const show = () => {
    chip.hidden = navigator.onLine;
  };
  window.addEventListener('online', show);
  window.addEventListener('offline', show);
  show();
}

export function registerServiceWorker(when: Promise<unknown>): void {
  if (!('serviceWorker' in navigator) || location.protocol === 'file:') return;
  void when.then(() => navigator.serviceWorker.register('sw.js').catch(() => undefined));
}

/** `data-ready` and the `tea-ui-ready` mark now; `data-engine` and `tea-engine-ready` when the engine answers. */
export function markReady(engine: Promise<unknown>): void {
  document.body.dataset.ready = 'true';
  performance.mark('tea-ui-ready');
  void engine.then(() => {
    performance.mark('tea-engine-ready');
    document.body.dataset.engine = 'ready';
  });
}
