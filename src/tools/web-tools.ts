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
import type { ActionCompiler, ActionContext, ActionDefinition } from '../core/action.js';
import type { CompiledValue } from '../templates/types.js';
import {
  DEFAULT_MAX_CHARS,
  FORMATS,
  MAX_CHARS_CEILING,
  MAX_QUERY_CHARS,
  MAX_RESULTS,
  readSearchProvider,
} from './web-tools-settings.js';
import { HTTP_TIMEOUT_MS_CEILING } from '../core/setting-ceilings.js';

/** The fetching and reading code loads on the first call: its own chunk where bundles split (the web demo's first load). */
const running = () => import('./web-tools-run.js');

/** Compiles `with:` as templates, checked against the closed list of keys first. */
function compileWith(
  params: Record<string, unknown>,
  compiler: ActionCompiler,
  tool: string,
  keys: readonly string[],
): CompiledValue {
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
  description:
    'Fetch a web page (only hosts the agent allows) and return its readable content as Markdown or text, with links and title.',
  parameters: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', maxLength: 2048, description: 'Absolute http(s) URL' },
      formats: { type: 'array', items: { enum: [...FORMATS] }, description: 'default ["markdown"]' },
      only_main_content: {
        type: 'boolean',
        default: true,
        description: 'keep <main>/<article>; drop nav, aside, footer, forms',
      },
      timeout: {
        type: 'integer',
        minimum: 1,
        maximum: HTTP_TIMEOUT_MS_CEILING,
        description: 'milliseconds; never above settings.http.timeout_ms',
      },
      max_chars: { type: 'integer', minimum: 100, maximum: MAX_CHARS_CEILING, default: DEFAULT_MAX_CHARS },
    },
    additionalProperties: false,
  },
  sideEffects: false,
  prepare: (params, compiler) => compileWith(params, compiler, 'web.scrape', SCRAPE_KEYS),
  run: async (compiled, context) => (await running()).scrape(render(compiled, context), context),
};

const SEARCH_KEYS = ['query', 'num_results'] as const;

export const webSearch: ActionDefinition<CompiledValue> = {
  name: 'web.search',
  description:
    'Search the web through the search service the agent configures (SearXNG). Returns {results: [{title, url, content}], total_results, answer}.',
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
  run: async (compiled, context) => (await running()).search(render(compiled, context), context),
};

export function webTools(): ActionDefinition[] {
  return [webScrape as ActionDefinition, webSearch as ActionDefinition];
}
