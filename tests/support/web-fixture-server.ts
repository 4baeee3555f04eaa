/**
 * A small local web site for web.scrape / web.search tests and examples: real HTTP on 127.0.0.1
 * at a random port, Node only. Pages:
 *   /article.html  an article page with nav, header, footer, script, style, a list, a table, code, links
 *   /plain.txt     text/plain
 *   /data.bin      application/octet-stream
 *   /missing       404
 *   /big.html      a page of about 600 KB (past http.get's default 256 KiB cap)
 *   /redirect?to=  302 to `to`
 *   /search?q=&format=json  a SearXNG-shaped JSON answer (403 without format=json, 401 when
 *                  `searchKey` is set and the bearer token differs)
 * Every request is recorded with its headers (CORS preflights too). Answers carry CORS headers,
 * so a page in Chromium can fetch them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebFixture {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  requests: Array<{ path: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

export const ARTICLE_HTML = `<!DOCTYPE html>
<html lang="en"><head>
<title>Edge agents &amp; you</title>
<meta name="description" content="Why small agents run well at the edge.">
<style>body { color: red }</style>
<script>document.write("tracking")</script>
</head><body>
<header><a href="/">Home</a> | <a href="/about">About</a></header>
<nav><ul><li><a href="/nav-only">Nav link</a></li></ul></nav>
<main>
  <article>
    <h1>Edge agents</h1>
    <p>Agents that run <strong>close to users</strong> answer in <em>milliseconds</em>.
       Read the <a href="/docs/intro?x=1#top">introduction</a>.</p>
    <h2>Why it works</h2>
    <ul>
      <li>Small models</li>
      <li>Cached prompts<ol><li>first</li><li>second</li></ol></li>
    </ul>
    <blockquote>Latency is a feature.</blockquote>
    <pre><code>tea-edge run agent.yaml
  --input {}</code></pre>
    <table><tr><th>Runtime</th><th>Cold start</th></tr><tr><td>Workers</td><td>5 ms</td></tr></table>
    <p>Inline <code>llm.embed</code> &mdash; and &#x2014; entities &#169; &unknown; done.<br>Second line.</p>
    <img src="/chart.png" alt="A latency chart">
    <a href="javascript:alert(1)">bad link</a> <a href="mailto:a@b.c">mail</a>
  </article>
</main>
<aside>Buy now!</aside>
<footer>Copyright footer</footer>
</body></html>`;

export const SEARCH_RESULTS = {
  query: 'edge agents',
  number_of_results: 1234,
  results: [
    {
      url: 'https://example.org/a',
      title: 'Edge agents explained',
      content: 'A guide to agents at the edge.',
      engine: 'mock',
    },
    { url: 'https://example.org/b', title: 'TEA', content: 'The Edge Agent.', engine: 'mock' },
    { url: 'https://example.org/c', title: 'Third', content: 'Third result.', engine: 'mock' },
    { title: 'no url: dropped' },
  ],
  answers: ['Agents that run near users.'],
};

export async function startWebFixture(options: { searchKey?: string } = {}): Promise<WebFixture> {
  const requests: WebFixture['requests'] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture');
    requests.push({ path: url.pathname + url.search, headers: { ...request.headers } });
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'authorization, accept',
      'access-control-allow-methods': 'GET, OPTIONS',
    };
    if (request.method === 'OPTIONS') return void response.writeHead(204, cors).end();
    const send = (status: number, type: string, body: string | Buffer) =>
      response.writeHead(status, { ...cors, 'content-type': type }).end(body);
    switch (url.pathname) {
      case '/article.html':
        return send(200, 'text/html; charset=utf-8', ARTICLE_HTML);
      case '/plain.txt':
        return send(200, 'text/plain', 'Just text.\nTwo lines.');
      case '/data.bin':
        return send(200, 'application/octet-stream', Buffer.from([0, 1, 2, 3]));
      case '/big.html':
        return send(
          200,
          'text/html',
          `<html><body><main>${'<p>lorem ipsum dolor sit amet</p>'.repeat(20_000)}</main></body></html>`,
        );
      case '/redirect':
        return response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      case '/search': {
        if (url.searchParams.get('format') !== 'json') return send(403, 'text/html', 'Forbidden');
        if (options.searchKey !== undefined && request.headers.authorization !== `Bearer ${options.searchKey}`)
          return send(401, 'application/json', '{"error": "unauthorized"}');
        return send(200, 'application/json', JSON.stringify({ ...SEARCH_RESULTS, query: url.searchParams.get('q') }));
      }
      default:
        return send(404, 'text/html', '<h1>Not found</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
