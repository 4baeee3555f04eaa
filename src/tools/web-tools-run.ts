/** What web.scrape and web.search do when called (their definitions are in web-tools.ts, loaded with the engine). */
import { AgentError } from '../core/agent-error.js';
import type { ActionContext } from '../core/action.js';
import { fetchAllowed } from './http-get.js';
import { htmlToReadable } from './html-to-text.js';
import {
  DEFAULT_MAX_CHARS,
  FORMATS,
  MAX_CHARS_CEILING,
  MAX_LINKS,
  MAX_QUERY_CHARS,
  MAX_RESULTS,
  readSearchProvider,
} from './web-tools-settings.js';

export async function scrape(
  params: Record<string, unknown>,
  context: ActionContext,
): Promise<Record<string, unknown>> {
  const formats = params['formats'] ?? ['markdown'];
  if (
    !Array.isArray(formats) ||
    formats.length === 0 ||
    !formats.every((format) => (FORMATS as readonly unknown[]).includes(format))
  ) {
    throw new AgentError('INVALID_PARAMS', `web.scrape: formats must be a non-empty list of ${FORMATS.join(', ')}`, {
      field: 'formats',
    });
  }
  const maxChars = params['max_chars'] ?? DEFAULT_MAX_CHARS;
  if (typeof maxChars !== 'number' || !Number.isInteger(maxChars) || maxChars < 100 || maxChars > MAX_CHARS_CEILING) {
    throw new AgentError(
      'INVALID_PARAMS',
      `web.scrape: max_chars must be an integer from 100 to ${MAX_CHARS_CEILING}`,
      { field: 'max_chars' },
    );
  }
  const timeout = params['timeout'];
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    throw new AgentError('INVALID_PARAMS', 'web.scrape: timeout must be a positive number of milliseconds', {
      field: 'timeout',
    });
  }
  const onlyMain = params['only_main_content'] ?? true;
  if (typeof onlyMain !== 'boolean')
    throw new AgentError('INVALID_PARAMS', 'web.scrape: only_main_content must be true or false', {
      field: 'only_main_content',
    });

  const fetched = await fetchAllowed(params['url'], context, {
    tool: 'web.scrape',
    headers: { accept: 'text/html, application/xhtml+xml, text/plain;q=0.8, */*;q=0.1' },
    ...(typeof timeout === 'number' ? { timeoutMs: timeout } : {}),
  });
  const status = fetched['status'] as number;
  const url = fetched['url'] as string;
  const contentType = String(fetched['content_type'] ?? '').toLowerCase();
  if (status < 200 || status > 299) return { success: false, url, status, error: `the page answered HTTP ${status}` };
  const isHtml =
    contentType.includes('html') || (contentType === '' && /^\s*<(!doctype|html)/i.test(fetched['body'] as string));
  if (!isHtml && !/^text\/|json|xml|javascript/.test(contentType)) {
    return {
      success: false,
      url,
      status,
      error: `web.scrape reads HTML and text; the page is ${contentType || 'of no declared type'}`,
    };
  }
  const body = fetched['body'] as string;
  const page = isHtml
    ? htmlToReadable(body, {
        format: formats.includes('markdown') ? 'markdown' : 'text',
        baseUrl: url,
        onlyMainContent: onlyMain,
        maxChars,
        maxLinks: MAX_LINKS,
      })
    : {
        content: body.slice(0, maxChars),
        title: undefined,
        description: undefined,
        links: [],
        truncated: body.length > maxChars,
      };
  const result: Record<string, unknown> = { success: true, url, status };
  if (formats.includes('markdown')) result['markdown'] = page.content;
  if (formats.includes('text')) {
    result['text'] =
      formats.includes('markdown') && isHtml
        ? htmlToReadable(body, { format: 'text', baseUrl: url, onlyMainContent: onlyMain, maxChars, maxLinks: 0 })
            .content
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

export async function search(
  params: Record<string, unknown>,
  context: ActionContext,
): Promise<Record<string, unknown>> {
  const provider = readSearchProvider(context.settings);
  if (typeof provider === 'string') throw new AgentError('INVALID_PARAMS', provider, { field: 'settings.web_search' });
  const query = params['query'];
  if (typeof query !== 'string' || query.trim() === '' || query.length > MAX_QUERY_CHARS) {
    throw new AgentError('INVALID_PARAMS', `web.search needs a \`query\` of 1 to ${MAX_QUERY_CHARS} characters`, {
      field: 'query',
    });
  }
  const count = params['num_results'] ?? 10;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_RESULTS) {
    throw new AgentError('INVALID_PARAMS', `web.search: num_results must be an integer from 1 to ${MAX_RESULTS}`, {
      field: 'num_results',
    });
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  if (provider.apiKeySecret !== undefined) {
    const secrets = context.scope()['secrets'] as Record<string, unknown> | undefined;
    const key = secrets?.[provider.apiKeySecret];
    if (typeof key !== 'string' || key === '') {
      throw new AgentError(
        'ACTION_FAILED',
        `web.search: the host gave no secret '${provider.apiKeySecret}' (settings.web_search.api_key_secret)`,
        { field: 'settings.web_search.api_key_secret' },
      );
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
    const hint =
      status === 403 ? ' (SearXNG answers 403 when `json` is not among search.formats in its settings.yml)' : '';
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
    .filter(
      (item): item is Record<string, unknown> =>
        typeof item === 'object' && item !== null && typeof (item as Record<string, unknown>)['url'] === 'string',
    )
    .slice(0, count)
    .map((item) => ({ title: text(item['title']), url: item['url'] as string, content: text(item['content']) }));
  const answers = Array.isArray(record['answers']) ? record['answers'] : [];
  const firstAnswer = answers
    .map((answer) =>
      typeof answer === 'string' ? answer : text((answer as Record<string, unknown> | null)?.['answer']),
    )
    .find((answer) => answer !== '');
  const total =
    typeof record['number_of_results'] === 'number' && record['number_of_results'] > 0
      ? record['number_of_results']
      : results.length;
  return { success: true, query, results, total_results: total, answer: firstAnswer ?? null };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 2000) : '';
}
