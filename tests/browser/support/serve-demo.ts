/**
 * Serves dist/web-demo/ for the browser tests: through the edge engineer's Node host
 * (`worker/node/node.ts`, what `tea-edge serve` runs) when it exists, else through a tiny static
 * server. Builds the demo first when it is missing (once, under a lock directory, because
 * several test files may start together).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const DIST = path.join(ROOT, 'dist/web-demo');

export interface DemoServer {
  url: string;
  via: 'tea-edge serve' | 'static';
  close(): Promise<void>;
}

/** Builds dist/web-demo when it is absent. */
export async function ensureBuilt(): Promise<void> {
  if (existsSync(path.join(DIST, 'index.html')) && existsSync(path.join(DIST, 'engine-worker.js'))) return;
  const lock = path.join(ROOT, 'dist/.web-demo-build-lock');
  await mkdir(path.dirname(lock), { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (waited > 120_000) throw new Error('timed out waiting for another web-demo build');
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (existsSync(path.join(DIST, 'engine-worker.js'))) return;
    }
  }
  try {
    const result = spawnSync(process.execPath, ['build/build.mjs', 'fengari', 'web-demo'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, CI: '1' },
    });
    if (result.status !== 0) throw new Error(`web-demo build failed:\n${result.stderr}`);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** Starts a server for the built demo on 127.0.0.1 with a free port. */
export async function serveDemo(): Promise<DemoServer> {
  await ensureBuilt();
  const nodeHost = path.join(ROOT, 'worker/node/node.ts');
  if (existsSync(nodeHost) && !process.env.TEA_BROWSER_STATIC) {
    const module = (await import(pathToFileURL(nodeHost).href)) as {
      serve?: (options: Record<string, unknown>) => Promise<unknown> | unknown;
    };
    if (typeof module.serve === 'function') {
      // The demo needs none of the server's agents; an empty folder keeps a broken example from
      // stopping the browser tests.
      const traceDir = mkdtempSync(path.join(tmpdir(), 'tea-browser-'));
      const agentsDir = mkdtempSync(path.join(tmpdir(), 'tea-browser-agents-'));
      const started = (await module.serve({
        port: 0,
        hostname: '127.0.0.1',
        agentsDir,
        traceDir,
        webDemoDir: DIST,
      })) as Record<string, unknown>;
      const url = typeof started.url === 'string' ? started.url : `http://127.0.0.1:${String(started.port)}`;
      const close =
        typeof started.close === 'function' ? (started.close as () => Promise<void> | void) : () => undefined;
      return {
        url: url.endsWith('/') ? url : `${url}/`,
        via: 'tea-edge serve',
        close: async () => void (await close.call(started)),
      };
    }
  }
  return serveStatic(DIST);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
};

/** A static file server for a directory (GET only, no directory listing). */
export async function serveStatic(directory: string): Promise<DemoServer> {
  const server: Server = createServer(async (request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const file = path.join(directory, pathname.endsWith('/') ? `${pathname}index.html` : pathname);
    if (!file.startsWith(directory)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      response.writeHead(200, {
        'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      });
      response.end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    via: 'static',
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
