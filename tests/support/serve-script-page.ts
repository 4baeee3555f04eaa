/**
 * Serves a page whose only content is a module script, bundled from source for the browser, on
 * 127.0.0.1 at a random port: the origin a Chromium test opens to run library code in the page.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as esbuild from 'esbuild';

export interface ScriptPage {
  url: string;
  close(): Promise<void>;
}

/** Bundles `source` (imports resolved from `resolveDir`) and serves it as `/page.js` under an HTML page at `/`. */
export async function serveScriptPage(source: string, resolveDir: string): Promise<ScriptPage> {
  const bundle = await esbuild.build({
    stdin: { contents: source, resolveDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'warning',
  });
  const script = bundle.outputFiles[0]!.text;
  const site = createServer((request, response) => {
    if (request.url === '/page.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><script type="module" src="/page.js"></script>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => site.close(() => resolve())),
  };
}
