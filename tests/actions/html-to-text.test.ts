/** The bounded HTML → Markdown/text converter behind web.scrape. */
import { describe, expect, it } from 'vitest';
import { decodeEntities, htmlToReadable, type HtmlToTextOptions } from '../../src/tools/html-to-text.js';
import { ARTICLE_HTML } from '../support/web-fixture-server.js';

const options = (extra: Partial<HtmlToTextOptions> = {}): HtmlToTextOptions => ({
  format: 'markdown',
  baseUrl: 'https://site.example/blog/post',
  onlyMainContent: true,
  maxChars: 100_000,
  maxLinks: 50,
  ...extra,
});

describe('htmlToReadable', () => {
  it('turns an article into Markdown: headings, emphasis, links, nested lists, quote, code, table', () => {
    const page = htmlToReadable(ARTICLE_HTML, options());
    expect(page.title).toBe('Edge agents & you');
    expect(page.description).toBe('Why small agents run well at the edge.');
    expect(page.content).toBe(
      [
        '# Edge agents',
        '',
        'Agents that run **close to users** answer in _milliseconds_. Read the [introduction](https://site.example/docs/intro?x=1).',
        '',
        '## Why it works',
        '',
        '- Small models',
        '- Cached prompts',
        '  1. first',
        '  2. second',
        '',
        '> Latency is a feature.',
        '',
        '```',
        'tea-edge run agent.yaml',
        '  --input {}',
        '```',
        '',
        'Runtime | Cold start',
        'Workers | 5 ms',
        '',
        'Inline `llm.embed` — and — entities © &unknown; done.',
        'Second line.',
        '',
        'A latency chart bad link mail',
      ].join('\n'),
    );
    expect(page.links).toEqual(['https://site.example/docs/intro?x=1']);
    expect(page.truncated).toBe(false);
  });

  it('drops scripts, styles, nav, header, aside and footer', () => {
    const page = htmlToReadable(ARTICLE_HTML, options({ format: 'text' }));
    for (const hidden of ['tracking', 'color: red', 'Nav link', 'Home', 'Buy now', 'Copyright'])
      expect(page.content).not.toContain(hidden);
    expect(page.content).toContain('close to users');
    expect(page.content).not.toContain('**');
    expect(page.content).not.toContain('](');
  });

  it('only_main_content: false keeps the page chrome', () => {
    const page = htmlToReadable(ARTICLE_HTML, options({ onlyMainContent: false, format: 'text' }));
    expect(page.content).toContain('Buy now!');
    expect(page.content).toContain('Copyright footer');
    expect(page.links).toContain('https://site.example/nav-only');
  });

  it('a page without <main> keeps its body but not its nav', () => {
    const page = htmlToReadable('<body><nav>menu</nav><div>Hello <b>there</b></div><p>Next</p></body>', options());
    expect(page.content).toBe('Hello **there**\n\nNext');
  });

  it('"<main>" inside a script does not hide a page that has no <main>', () => {
    const page = htmlToReadable(
      '<body><script>var t = "<main>";</script><nav>menu</nav><p>Body text</p></body>',
      options(),
    );
    expect(page.content).toBe('Body text');
  });

  it('a head without </head> ends at <body>', () => {
    const page = htmlToReadable(
      '<html><head><title>T</title><meta name="description" content="D"><body><p>Visible</p></body>',
      options(),
    );
    expect(page).toMatchObject({ content: 'Visible', title: 'T', description: 'D' });
  });

  it('caps the output and says so', () => {
    const page = htmlToReadable(`<p>${'word '.repeat(10_000)}</p>`, options({ maxChars: 200 }));
    expect(page.content.length).toBeLessThanOrEqual(200);
    expect(page.truncated).toBe(true);
  });

  it('stays linear on hostile markup (unclosed tags and quotes, a lone <, endless nesting)', () => {
    const hostile = [
      '<div '.repeat(50_000),
      '<a href="'.repeat(20_000),
      '<'.repeat(100_000),
      '<b>'.repeat(50_000) + 'x',
      '<!--'.repeat(20_000),
      '<script>'.repeat(10_000),
    ];
    for (const html of hostile) {
      const page = htmlToReadable(html, options({ maxChars: 1000 }));
      expect(page.content.length).toBeLessThanOrEqual(1000);
    }
  }, 20_000);

  it('stays linear when everything lands on one long line (no output cap to stop early)', () => {
    const uncapped = options({ maxChars: 10_000_000, onlyMainContent: false });
    expect(htmlToReadable('<'.repeat(200_000), uncapped).content).toHaveLength(200_000);
    const inline = htmlToReadable('<p>' + '<b>x</b> <a href="/y">y</a> '.repeat(50_000), uncapped);
    expect(inline.content.startsWith('**x** [y](https://site.example/y) **x**')).toBe(true);
  }, 20_000);

  it('an unclosed script hides the rest; a lone < in text is kept', () => {
    expect(htmlToReadable('<p>a < b</p><script>never', options()).content).toBe('a < b');
  });

  it('links: relative resolved, fragments dropped, only http(s), no duplicates, capped', () => {
    const html =
      Array.from({ length: 10 }, (_, index) => `<a href="/p${index % 5}#f">p</a>`).join(' ') +
      '<a href="data:text/html,x">d</a>';
    const page = htmlToReadable(html, options({ maxLinks: 3 }));
    expect(page.links).toEqual(['https://site.example/p0', 'https://site.example/p1', 'https://site.example/p2']);
  });
});

describe('decodeEntities', () => {
  it('decodes named and numeric entities and leaves unknown ones', () => {
    expect(decodeEntities('&lt;a&gt; &amp;amp; &#65;&#x42; &nbsp;&hellip; &valueOf; &#0; &#xD800;')).toBe(
      '<a> &amp; AB  … &valueOf; \uFFFD \uFFFD',
    );
  });
});
