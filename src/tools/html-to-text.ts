/**
 * A small, bounded HTML → readable text or Markdown converter for `web.scrape`. Not a browser
 * parser: one linear pass over the markup that keeps what a reader (or a model) needs — headings,
 * paragraphs, lists, links, emphasis, code, quotes, table rows — and drops scripts, styles,
 * navigation and forms. Linear time by construction: every scan moves forward (`indexOf` or a
 * sticky regex from the current position), and the output stops at `maxChars`.
 *
 * Why not a dependency: the well-known converters either need a DOM (absent in Workers) or pull a
 * full HTML parser; this covers what agents read, in one file, with no eval and no Node APIs.
 */

export interface HtmlToTextOptions {
  format: 'markdown' | 'text';
  /** The page URL: relative links are resolved against it. */
  baseUrl: string;
  /** Keep only <main>/<article> when the page has one, and drop nav, aside, footer, form. */
  onlyMainContent: boolean;
  /** Output cap in characters. */
  maxChars: number;
  /** Cap of the `links` list. */
  maxLinks: number;
}

export interface ReadablePage {
  content: string;
  title: string | undefined;
  description: string | undefined;
  /** Absolute http(s) links in page order, without duplicates. */
  links: string[];
  truncated: boolean;
}

/** Elements whose content is never text a reader sees. */
const RAW_SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'textarea']);
/** Elements skipped with all their content (counted, so nesting works). */
const ALWAYS_SKIPPED = new Set(['head', 'svg', 'math', 'iframe', 'object', 'canvas', 'select', 'button']);
const CHROME = new Set(['nav', 'aside', 'footer', 'form', 'dialog']);
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const BLOCK = new Set([
  'address',
  'article',
  'div',
  'dl',
  'dt',
  'dd',
  'fieldset',
  'figure',
  'figcaption',
  'header',
  'main',
  'section',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'details',
  'summary',
  'center',
]);
const PARAGRAPH = new Set(['p', 'blockquote', 'pre', 'ul', 'ol', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  times: '×',
  divide: '÷',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  shy: '',
  zwj: '',
  zwnj: '',
};

const TAG_NAME = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

/**
 * Converts HTML to readable text or Markdown.
 * @example
 * htmlToReadable('<h1>Hi</h1><p>See <a href="/x">this</a>.</p>', { format: 'markdown', baseUrl: 'https://a.example/', onlyMainContent: true, maxChars: 10_000, maxLinks: 50 })
 * // → content "# Hi\n\nSee [this](https://a.example/x)."
 */
export function htmlToReadable(html: string, options: HtmlToTextOptions): ReadablePage {
  const useMain = options.onlyMainContent && /<(main|article)[\s>]/i.test(html);
  const page = convert(html, options, useMain);
  // The `<main` seen may have been text inside a script: then keep the page minus its chrome.
  return useMain && page.content === '' ? convert(html, options, false) : page;
}

function convert(html: string, options: HtmlToTextOptions, hasMain: boolean): ReadablePage {
  const markdown = options.format === 'markdown';
  const out = createWriter(options.maxChars);
  const links: string[] = [];
  const seenLinks = new Set<string>();
  const skipped = new Map<string, number>();
  let skipTotal = 0;
  let mainDepth = 0;
  let preDepth = 0;
  let quoteDepth = 0;
  const lists: Array<{ ordered: boolean; next: number }> = [];
  const anchors: Array<{ href: string | undefined; start: Mark }> = [];
  let title: string | undefined;
  let description: string | undefined;

  const visible = (): boolean => skipTotal === 0 && (!hasMain || mainDepth > 0);
  const skip = (name: string, delta: number): void => {
    const count = (skipped.get(name) ?? 0) + delta;
    if (count < 0) return;
    skipped.set(name, count);
    skipTotal += delta;
  };
  const linePrefix = (): string => (markdown && quoteDepth > 0 ? '> '.repeat(quoteDepth) : '');

  let position = 0;
  let noMoreTagEnds = false;
  while (position < html.length && !out.full) {
    const open = noMoreTagEnds ? -1 : html.indexOf('<', position);
    if (open < 0) {
      if (visible()) out.text(decodeEntities(html.slice(position)), preDepth > 0);
      break;
    }
    if (open > position && visible()) out.text(decodeEntities(html.slice(position, open)), preDepth > 0);
    if (html.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4);
      position = end < 0 ? html.length : end + 3;
      continue;
    }
    if (!/^<[a-zA-Z/!?]/.test(html.slice(open, open + 2))) {
      // A `<` that cannot start a tag (`a < b`) is text.
      if (visible()) out.text('<', preDepth > 0);
      position = open + 1;
      continue;
    }
    const close = html.indexOf('>', open + 1);
    if (close < 0) {
      // No tag can end any more: the rest is text.
      noMoreTagEnds = true;
      position = open;
      if (visible()) out.text(decodeEntities(html.slice(open)), preDepth > 0);
      break;
    }
    const tagText = html.slice(open, close + 1);
    const match = TAG_NAME.exec(tagText);
    position = close + 1;
    if (match === null) {
      // `<!DOCTYPE …>`, `<?xml …>`, or a lone `<` in text.
      if (!/^<[!?]/.test(tagText) && visible()) out.text(decodeEntities(tagText), preDepth > 0);
      continue;
    }
    const closing = match[1] === '/';
    const name = match[2]!.toLowerCase();

    if (!closing && (RAW_SKIPPED.has(name) || name === 'title')) {
      const end = new RegExp(`</${name}\\s*>`, 'gi');
      end.lastIndex = position;
      const found = end.exec(html);
      const inner = html.slice(position, found === null ? html.length : found.index);
      if (name === 'title' && title === undefined) title = collapse(decodeEntities(inner)).trim() || undefined;
      position = found === null ? html.length : end.lastIndex;
      continue;
    }
    if (name === 'meta' && description === undefined) {
      const attributes = readAttributes(tagText);
      const key = (attributes.get('name') ?? attributes.get('property') ?? '').toLowerCase();
      if (key === 'description' || key === 'og:description')
        description = collapse(decodeEntities(attributes.get('content') ?? '')).trim() || undefined;
      continue;
    }
    if (name === 'body' && !closing && (skipped.get('head') ?? 0) > 0) {
      // `</head>` may be omitted (HTML allows it): the body ends the head.
      skipTotal -= skipped.get('head')!;
      skipped.set('head', 0);
    }
    if (
      ALWAYS_SKIPPED.has(name) ||
      (options.onlyMainContent && (CHROME.has(name) || (name === 'header' && mainDepth === 0)))
    ) {
      if (!VOID.has(name) && !tagText.endsWith('/>')) skip(name, closing ? -1 : 1);
      continue;
    }
    if (name === 'main' || name === 'article') mainDepth = Math.max(0, mainDepth + (closing ? -1 : 1));
    if (!visible() && name !== 'main' && name !== 'article') continue;

    switch (name) {
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        out.endBlock(true, linePrefix());
        if (!closing && markdown) out.raw(`${'#'.repeat(Number(name[1]))} `);
        break;
      case 'br':
        out.endLine(linePrefix());
        break;
      case 'hr':
        out.endBlock(true, linePrefix());
        out.raw(markdown ? '---' : '----');
        out.endBlock(true, linePrefix());
        break;
      case 'ul':
      case 'ol':
        out.endBlock(lists.length === 0, linePrefix());
        if (closing) lists.pop();
        else lists.push({ ordered: name === 'ol', next: 1 });
        break;
      case 'li':
        out.endLine(linePrefix());
        if (!closing) {
          const list = lists.at(-1);
          const marker = list?.ordered ? `${list.next++}. ` : '- ';
          out.raw('  '.repeat(Math.max(0, lists.length - 1)) + marker);
        }
        break;
      case 'pre':
        if (!closing) {
          out.endBlock(true, linePrefix());
          preDepth++;
          if (markdown) out.raw('```');
          out.endLine(linePrefix());
        } else {
          out.endLine(linePrefix());
          preDepth = Math.max(0, preDepth - 1);
          if (markdown) out.raw('```');
          out.endBlock(true, linePrefix());
        }
        break;
      case 'blockquote':
        out.endBlock(true, linePrefix());
        quoteDepth = Math.max(0, quoteDepth + (closing ? -1 : 1));
        break;
      case 'tr':
        out.endLine(linePrefix());
        break;
      case 'td':
      case 'th':
        if (!closing && !out.lineEmpty()) out.raw(' | ');
        break;
      case 'a':
        if (!closing)
          anchors.push({
            href: absoluteHttpUrl(readAttributes(tagText).get('href'), options.baseUrl),
            start: out.mark(),
          });
        else {
          const anchor = anchors.pop();
          if (anchor?.href !== undefined) {
            if (!seenLinks.has(anchor.href) && links.length < options.maxLinks) {
              seenLinks.add(anchor.href);
              links.push(anchor.href);
            }
            if (markdown) out.wrapSince(anchor.start, '[', `](${anchor.href})`);
          }
        }
        break;
      case 'strong':
      case 'b':
        if (markdown) out.raw('**', closing);
        break;
      case 'em':
      case 'i':
        if (markdown) out.raw('_', closing);
        break;
      case 'code':
        if (markdown && preDepth === 0) out.raw('`', closing);
        break;
      case 'img': {
        const alt = readAttributes(tagText).get('alt');
        if (alt !== undefined && alt.trim() !== '') out.text(` ${decodeEntities(alt)} `, false);
        break;
      }
      default:
        if (PARAGRAPH.has(name)) out.endBlock(true, linePrefix());
        else if (BLOCK.has(name)) out.endBlock(false, linePrefix());
    }
  }
  const { content, truncated } = out.finish(linePrefix());
  return { content, title, description, links, truncated };
}

/** Where a link's text starts: the line it is on and the piece it starts at. */
interface Mark {
  line: number;
  piece: number;
}

/**
 * Accumulates lines with collapsed whitespace and a character cap. The current line is a list of
 * pieces with its length and last character tracked, never one growing string that is searched
 * again on every append: a page that is one long line stays linear.
 */
function createWriter(maxChars: number) {
  const lines: string[] = [];
  let pieces: string[] = [];
  let lineLength = 0;
  let lineNumber = 0;
  let lastChar = '';
  let hasText = false;
  let length = 0;
  let truncated = false;
  let pendingBlank = false;

  const push = (text: string): void => {
    pieces.push(text);
    lineLength += text.length;
    lastChar = text[text.length - 1]!;
    if (!hasText && text.trim() !== '') hasText = true;
    if (length + lineLength > maxChars) truncated = true;
  };
  /** Removes the line's trailing space (it is always the last character of the last piece). */
  const dropTrailingSpace = (): void => {
    const last = pieces.pop()!;
    const kept = last.slice(0, -1);
    lineLength -= 1;
    if (kept !== '') pieces.push(kept);
    lastChar = pieces.length === 0 ? '' : pieces[pieces.length - 1]!.slice(-1);
  };

  const writer = {
    get full() {
      return truncated;
    },
    /** Text content; whitespace collapsed unless `verbatim` (inside <pre>). */
    text(text: string, verbatim: boolean) {
      if (verbatim) {
        text.split('\n').forEach((piece, index) => {
          if (index > 0) writer.endLine('');
          writer.raw(piece);
        });
        return;
      }
      let collapsed = collapse(text);
      if (lineLength === 0 || lastChar === ' ') collapsed = collapsed.replace(/^ /, '');
      writer.raw(collapsed);
    },
    /** Appends markup; `closing` markers go before trailing whitespace (`**bold**` not `**bold **`). */
    raw(text: string, closing = false) {
      if (truncated || text === '') return;
      if (closing && lastChar === ' ') {
        dropTrailingSpace();
        push(`${text} `);
      } else push(text);
    },
    lineEmpty: () => !hasText,
    mark: (): Mark => ({ line: lineNumber, piece: pieces.length }),
    /** Wraps the text written since `start` in this line (links); empty text is left alone. */
    wrapSince(start: Mark, before: string, after: string) {
      if (start.line !== lineNumber || start.piece > pieces.length) return;
      const written = pieces.splice(start.piece).join('');
      const inner = written.trim();
      lineLength -= written.length;
      const wrapped = inner === '' ? written : `${before}${inner}${after}${written.endsWith(' ') ? ' ' : ''}`;
      if (wrapped !== '') push(wrapped);
      else lastChar = pieces.length === 0 ? '' : pieces[pieces.length - 1]!.slice(-1);
    },
    endLine(prefix: string) {
      // Leading spaces are kept: they are list indentation or <pre> text (collapsed text never starts with one).
      const text = pieces.join('').trimEnd();
      const visibleText = hasText;
      pieces = [];
      lineLength = 0;
      lastChar = '';
      hasText = false;
      lineNumber++;
      if (!visibleText) return;
      if (pendingBlank && lines.length > 0) lines.push('');
      pendingBlank = false;
      const written = prefix + text;
      lines.push(written);
      length += written.length + 1;
      if (length > maxChars) truncated = true;
    },
    endBlock(blankAfter: boolean, prefix: string) {
      writer.endLine(prefix);
      if (blankAfter) pendingBlank = true;
    },
    finish(prefix: string) {
      writer.endLine(prefix);
      let content = lines.join('\n');
      if (content.length > maxChars) {
        content = content.slice(0, maxChars);
        truncated = true;
      }
      return { content, truncated };
    },
  };
  return writer;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Attributes of one tag's text (bounded by the tag). Later duplicates do not override. */
function readAttributes(tagText: string): Map<string, string> {
  const attributes = new Map<string, string>();
  const body = tagText.replace(TAG_NAME, '').replace(/\/?>$/, '');
  for (const match of body.matchAll(ATTRIBUTE)) {
    const key = match[1]!.toLowerCase();
    if (!attributes.has(key)) attributes.set(key, match[2] ?? match[3] ?? match[4] ?? '');
  }
  return attributes;
}

/** `&amp;`, `&#39;`, `&#x2014;` and common named entities; unknown names stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code =
        entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
        ? String.fromCodePoint(code)
        : '\uFFFD';
    }
    const name = Object.hasOwn(NAMED_ENTITIES, entity) ? entity : entity.toLowerCase();
    return Object.hasOwn(NAMED_ENTITIES, name) ? NAMED_ENTITIES[name]! : whole;
  });
}

function absoluteHttpUrl(href: string | undefined, base: string): string | undefined {
  if (href === undefined || href.trim() === '' || href.startsWith('#')) return undefined;
  try {
    const url = new URL(decodeEntities(href.trim()), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}
