/** The limits and the `settings.web_search` reader shared by web.scrape / web.search's definitions (web-tools.ts) and their run code (web-tools-run.ts). */
export const DEFAULT_MAX_CHARS = 20_000;
export const MAX_CHARS_CEILING = 200_000;
export const MAX_LINKS = 200;
export const MAX_QUERY_CHARS = 500;
export const MAX_RESULTS = 50;
export const FORMATS = ['markdown', 'text', 'links'] as const;

/** `settings.web_search` as web.search reads it. */
export interface SearchProvider {
  provider: 'searxng';
  url: string;
  apiKeySecret: string | undefined;
  language: string | undefined;
}

export function readSearchProvider(settings: Readonly<Record<string, unknown>>): SearchProvider | string {
  const raw = settings['web_search'];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return 'web.search needs `settings.web_search: {provider: searxng, url: https://your-searxng}` (and that origin in settings.http.allow)';
  }
  const config = raw as Record<string, unknown>;
  const known = ['provider', 'url', 'api_key_secret', 'language'];
  const unknown = Object.keys(config).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    return `settings.web_search has no key ${unknown.map((key) => `'${key}'`).join(', ')} (${known.join(', ')})`;
  if (config['provider'] !== 'searxng')
    return `settings.web_search.provider must be searxng (got ${JSON.stringify(config['provider'])}); paid search APIs are not built in`;
  if (typeof config['url'] !== 'string' || !/^https?:\/\//i.test(config['url']))
    return 'settings.web_search.url must be the http(s) base URL of a SearXNG instance';
  for (const key of ['api_key_secret', 'language']) {
    if (config[key] !== undefined && typeof config[key] !== 'string')
      return `settings.web_search.${key} must be a string`;
  }
  return {
    provider: 'searxng',
    url: config['url'],
    apiKeySecret: config['api_key_secret'] as string | undefined,
    language: config['language'] as string | undefined,
  };
}
