/**
 * `web.scrape` and `web.search`: TEA's web actions, without its paid services (Firecrawl,
 * Perplexity). Both fetch through the `http.get` policy (http-get.ts): the exact origin must be
 * listed in `settings.http.allow`, internal addresses are refused unless listed, redirects are
 * re-checked, bodies are capped by `settings.http.max_bytes`, requests by `settings.http.timeout_ms`.
 *
 * `web.scrape {url, formats, only_main_content, timeout, max_chars}` → `{success, url, status,
 * markdown?, text?, links?, metadata: {title, description, content_type, truncated}}`. HTML is
 * turned into Markdown or text by html-to-text.ts; other text types are returned as they are.
 *
 * `web.search {query, num_results}` asks the provider in `settings.web_search` — SearXNG's JSON
 * API (`{provider: searxng, url, api_key_secret?}`) — and returns `{success, query, results:
 * [{title, url, content}], total_results, answer}`. A key, when the instance needs one, is read
 * from the host's secrets under the name `api_key_secret` gives, and sent only to that origin.
 *
 * A page or provider that answers with an error status is `success: false` with `error` (a model
 * using the tool can react to it); a refused URL is FORBIDDEN; a network failure or timeout is
 * ACTION_FAILED.
 */
import { AgentError } from '../errors/agent-error.js';
import type { ActionCompiler, ActionContext, ActionDefinition } from '../actions/types.js';
import type { CompiledValue } from '../templates/types.js';
import { fetchAllowed } from './http-get.js';

const DEFAULT_MAX_CHARS = 20_000;
const MAX_CHARS_CEILING = 200_000;
const MAX_LINKS = 200;
const MAX_QUERY_CHARS = 500;
const MAX_RESULTS = 50;
const FORMATS = ['markdown', 'text', 'links'] as const;

/** Compiles `with:` as templates, checked against the closed list of keys first. */
function compileWith(params: Record<string, unknown>, compiler: ActionCompiler, tool: string, keys: readonly string[]): CompiledValue {
  for (const key of Object.keys(params)) {
    if (!keys.includes(key)) throw compiler.error(`${tool} has no parameter '${key}' (${keys.join(', ')})`, key);
  }
  return compiler.template(params, 'with');
}

function render(compiled: CompiledValue, context: ActionContext): Record<string, unknown> {
  return compiled.render(context.scope()) as Record<string, unknown>;
}

const SCRAPE_KEYS = ['url', 'formats', 'only_main_content', 'timeout', 'max_chars'] as const;

export const webScrape: ActionDefinition<CompiledValue> = {
  name: 'web.scrape',
  description: 'Fetch a web page (only hosts the agent allows) and return its readable content as Markdown or text, with links and title.',
  parameters: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', maxLength: 2048, description: 'Absolute http(s) URL' },
      formats: { type: 'array', items: { enum: [...FORMATS] }, description: 'default ["markdown"]' },
      only_main_content: { type: 'boolean', default: true, description: 'keep <main>/<article>; drop nav, aside, footer, forms' },
      timeout: { type: 'integer', minimum: 1, description: 'milliseconds; never above settings.http.timeout_ms' },
      max_chars: { type: 'integer', minimum: 100, maximum: MAX_CHARS_CEILING, default: DEFAULT_MAX_CHARS },
    },
    additionalProperties: false,
  },
  sideEffects: false,
  prepare: (params, compiler) => compileWith(params, compiler, 'web.scrape', SCRAPE_KEYS),
  run: (compiled, context) => scrape(render(compiled, context), context),
};

async function scrape(params: Record<string, unknown>, context: ActionContext): Promise<Record<string, unknown>> {
  const formats = params['formats'] ?? ['markdown'];
  if (!Array.isArray(formats) || formats.length === 0 || !formats.every((format) => (FORMATS as readonly unknown[]).includes(format))) {
    throw new AgentError('INVALID_PARAMS', `web.scrape: formats must be a non-empty list of ${FORMATS.join(', ')}`, { field: 'formats' });
  }
  const maxChars = params['max_chars'] ?? DEFAULT_MAX_CHARS;
  if (typeof maxChars !== 'number' || !Number.isInteger(maxChars) || maxChars < 100 || maxChars > MAX_CHARS_CEILING) {
    throw new AgentError('INVALID_PARAMS', `web.scrape: max_chars must be an integer from 100 to ${MAX_CHARS_CEILING}`, { field: 'max_chars' });
  }
  const timeout = params['timeout'];
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    throw new AgentError('INVALID_PARAMS', 'web.scrape: timeout must be a positive number of milliseconds', { field: 'timeout' });
  }
  const onlyMain = params['only_main_content'] ?? true;
  if (typeof onlyMain !== 'boolean') throw new AgentError('INVALID_PARAMS', 'web.scrape: only_main_content must be true or false', { field: 'only_main_content' });

  const fetched = await fetchAllowed(params['url'], context, {
    tool: 'web.scrape',
    headers: { accept: 'text/html, application/xhtml+xml, text/plain;q=0.8, */*;q=0.1' },
    ...(typeof timeout === 'number' ? { timeoutMs: timeout } : {}),
  });
  const status = fetched['status'] as number;
  const url = fetched['url'] as string;
  const contentType = String(fetched['content_type'] ?? '').toLowerCase();
  if (status < 200 || status > 299) return { success: false, url, status, error: `the page answered HTTP ${status}` };
  const isHtml = contentType.includes('html') || (contentType === '' && /^\s*<(!doctype|html)/i.test(fetched['body'] as string));
  if (!isHtml && !/^text\/|json|xml|javascript/.test(contentType)) {
    return { success: false, url, status, error: `web.scrape reads HTML and text; the page is ${contentType || 'of no declared type'}` };
  }
  const body = fetched['body'] as string;
  // Loaded when a page is read: its own chunk where bundles split (the web demo's first load).
  const { htmlToReadable } = await import('./html-to-text.js');
  const page = isHtml
    ? htmlToReadable(body, { format: formats.includes('markdown') ? 'markdown' : 'text', baseUrl: url, onlyMainContent: onlyMain, maxChars, maxLinks: MAX_LINKS })
    : { content: body.slice(0, maxChars), title: undefined, description: undefined, links: [], truncated: body.length > maxChars };
  const result: Record<string, unknown> = { success: true, url, status };
  if (formats.includes('markdown')) result['markdown'] = page.content;
  if (formats.includes('text')) {
    result['text'] = formats.includes('markdown') && isHtml
      ? htmlToReadable(body, { format: 'text', baseUrl: url, onlyMainContent: onlyMain, maxChars, maxLinks: 0 }).content
      : page.content;
  }
  if (formats.includes('links')) result['links'] = page.links;
  result['metadata'] = {
    title: page.title ?? null,
    description: page.description ?? null,
    content_type: contentType || null,
    // The page was cut at settings.http.max_bytes, or the readable content at max_chars.
    truncated: fetched['truncated'] === true || page.truncated,
  };
  return result;
}

const SEARCH_KEYS = ['query', 'num_results'] as const;

/** `settings.web_search` as web.search reads it. */
interface SearchProvider {
  provider: 'searxng';
  url: string;
  apiKeySecret: string | undefined;
  language: string | undefined;
}

function readSearchProvider(settings: Readonly<Record<string, unknown>>): SearchProvider | string {
  const raw = settings['web_search'];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return 'web.search needs `settings.web_search: {provider: searxng, url: https://your-searxng}` (and that origin in settings.http.allow)';
  }
  const config = raw as Record<string, unknown>;
  const known = ['provider', 'url', 'api_key_secret', 'language'];
  const unknown = Object.keys(config).filter((key) => !known.includes(key));
  if (unknown.length > 0) return `settings.web_search has no key ${unknown.map((key) => `'${key}'`).join(', ')} (${known.join(', ')})`;
  if (config['provider'] !== 'searxng') return `settings.web_search.provider must be searxng (got ${JSON.stringify(config['provider'])}); paid search APIs are not built in`;
  if (typeof config['url'] !== 'string' || !/^https?:\/\//i.test(config['url'])) return 'settings.web_search.url must be the http(s) base URL of a SearXNG instance';
  for (const key of ['api_key_secret', 'language']) {
    if (config[key] !== undefined && typeof config[key] !== 'string') return `settings.web_search.${key} must be a string`;
  }
  return { provider: 'searxng', url: config['url'], apiKeySecret: config['api_key_secret'] as string | undefined, language: config['language'] as string | undefined };
}

export const webSearch: ActionDefinition<CompiledValue> = {
  name: 'web.search',
  description: 'Search the web through the search service the agent configures (SearXNG). Returns {results: [{title, url, content}], total_results, answer}.',
  parameters: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS },
      num_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, default: 10 },
    },
    additionalProperties: false,
  },
  sideEffects: false,
  prepare(params, compiler) {
    const provider = readSearchProvider(compiler.agentSettings);
    if (typeof provider === 'string') throw compiler.error(provider, 'settings.web_search');
    return compileWith(params, compiler, 'web.search', SEARCH_KEYS);
  },
  run: (compiled, context) => search(render(compiled, context), context),
};

async function search(params: Record<string, unknown>, context: ActionContext): Promise<Record<string, unknown>> {
  const provider = readSearchProvider(context.settings);
  if (typeof provider === 'string') throw new AgentError('INVALID_PARAMS', provider, { field: 'settings.web_search' });
  const query = params['query'];
  if (typeof query !== 'string' || query.trim() === '' || query.length > MAX_QUERY_CHARS) {
    throw new AgentError('INVALID_PARAMS', `web.search needs a \`query\` of 1 to ${MAX_QUERY_CHARS} characters`, { field: 'query' });
  }
  const count = params['num_results'] ?? 10;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_RESULTS) {
    throw new AgentError('INVALID_PARAMS', `web.search: num_results must be an integer from 1 to ${MAX_RESULTS}`, { field: 'num_results' });
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (provider.apiKeySecret !== undefined) {
    const secrets = context.scope()['secrets'] as Record<string, unknown> | undefined;
    const key = secrets?.[provider.apiKeySecret];
    if (typeof key !== 'string' || key === '') {
      throw new AgentError('ACTION_FAILED', `web.search: the host gave no secret '${provider.apiKeySecret}' (settings.web_search.api_key_secret)`, { field: 'settings.web_search.api_key_secret' });
    }
    headers['authorization'] = `Bearer ${key}`;
  }
  const url = new URL('search', provider.url.endsWith('/') ? provider.url : `${provider.url}/`);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  if (provider.language !== undefined) url.searchParams.set('language', provider.language);
  const fetched = await fetchAllowed(url.href, context, { tool: 'web.search', headers });
  const status = fetched['status'] as number;
  if (status < 200 || status > 299) {
    const hint = status === 403 ? ' (SearXNG answers 403 when `json` is not among search.formats in its settings.yml)' : '';
    return { success: false, query, error: `the search service answered HTTP ${status}${hint}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fetched['body'] as string);
  } catch {
    const why = fetched['truncated'] === true ? 'was larger than settings.http.max_bytes' : 'is not JSON';
    return { success: false, query, error: `the search service's answer ${why}` };
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const rawResults = Array.isArray(record['results']) ? record['results'] : [];
  const results = rawResults
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && typeof (item as Record<string, unknown>)['url'] === 'string')
    .slice(0, count)
    .map((item) => ({ title: text(item['title']), url: item['url'] as string, content: text(item['content']) }));
  const answers = Array.isArray(record['answers']) ? record['answers'] : [];
  const firstAnswer = answers.map((answer) => (typeof answer === 'string' ? answer : text((answer as Record<string, unknown> | null)?.['answer']))).find((answer) => answer !== '');
  const total = typeof record['number_of_results'] === 'number' && record['number_of_results'] > 0 ? record['number_of_results'] : results.length;
  return { success: true, query, results, total_results: total, answer: firstAnswer ?? null };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 2000) : '';
}

export function webTools(): ActionDefinition[] {
  return [webScrape as ActionDefinition, webSearch as ActionDefinition];
}
