/** settings.mcp: servers, allow-lists, headers, and `mcp.<server>.<tool>` names. */
import { describe, expect, it } from 'vitest';
import { readMcpServers } from './mcp-settings.js';
import { checkMcpToolName, splitMcpToolName } from './mcp-tool-name.js';

const settings = (servers: unknown) => ({ mcp: { servers } });

describe('readMcpServers', () => {
  it('reads servers with their allow-list and header values (plain or from a secret)', () => {
    const servers = readMcpServers(
      settings([
        {
          name: 'docs',
          url: 'https://t.example/mcp',
          tools: ['search'],
          headers: { Authorization: { secret: 'tok', prefix: 'Bearer ' }, 'X-Client': 'tea' },
        },
      ]),
    );
    expect(servers).toEqual([
      {
        name: 'docs',
        url: 'https://t.example/mcp',
        tools: ['search'],
        headers: { authorization: { secret: 'tok', prefix: 'Bearer ' }, 'x-client': { text: 'tea' } },
      },
    ]);
    expect(readMcpServers({})).toEqual([]);
  });

  it('refuses bad names, URLs, allow-lists, duplicates and headers tea-edge sets itself', () => {
    const error = (servers: unknown) => (readMcpServers(settings(servers)) as { error: string }).error;
    expect(error([{ name: '1x', url: 'https://a/', tools: ['t'] }])).toContain('name must match');
    expect(error([{ name: 'a', url: 'file:///etc/passwd', tools: ['t'] }])).toContain('absolute http(s) URL');
    expect(error([{ name: 'a', url: 'https://a/', tools: [] }])).toContain('1 to 64 tool names');
    expect(error([{ name: 'a', url: 'https://a/', tools: ['../x'] }])).toContain('must match');
    expect(
      error([
        { name: 'a', url: 'https://a/', tools: ['t'] },
        { name: 'a', url: 'https://b/', tools: ['t'] },
      ]),
    ).toContain('listed twice');
    expect(error([{ name: 'a', url: 'https://a/', tools: ['t'], headers: { 'Mcp-Session-Id': 'x' } }])).toContain(
      'set by tea-edge',
    );
    expect(error([{ name: 'a', url: 'https://a/', tools: ['t'], extra: 1 }])).toContain("unknown key 'extra'");
  });
});

describe('MCP tool names', () => {
  it('split on the first dot after mcp.; the tool part may hold dots', () => {
    expect(splitMcpToolName('mcp.docs.search.v2')).toEqual({ server: 'docs', tool: 'search.v2' });
    expect(splitMcpToolName('mcp.docs')).toBeUndefined();
    expect(splitMcpToolName('math.calculate')).toBeUndefined();
  });

  it('must name a declared server and a tool on its allow-list', () => {
    const declared = settings([{ name: 'docs', url: 'https://t.example/mcp', tools: ['search'] }]);
    expect(checkMcpToolName('mcp.docs.search', declared)).toEqual({ tool: 'search', server: 'docs' });
    expect(checkMcpToolName('mcp.docs.delete', declared)).toMatchObject({
      error: expect.stringContaining('allow-list'),
    });
    expect(checkMcpToolName('mcp.other.search', declared)).toMatchObject({
      error: expect.stringContaining("has no 'other'"),
    });
  });
});
