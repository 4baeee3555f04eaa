/**
 * Host secrets (`secrets.NAME` in templates, `{secret: NAME}` in MCP headers): the CLI's
 * `--secret NAME` and `serve`'s TEA_AGENT_SECRETS give agents only the variables named, each set,
 * never the model key, and every value is redacted from what is printed, stored and answered.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { runCli, startServe } from '../support/run-cli.js';

const AGENT = `name: secret-user
nodes:
  - name: use
    run:
      type: expression
      value: "{{ {'header': 'Bearer ' ~ secrets.SEARCH_TOKEN, 'other': secrets.OTHER is none} }}"
      output_key: seen
`;
const TOKEN = 'tok-4f1e9a-secret-value';
const variables = { SEARCH_TOKEN: TOKEN, OTHER: 'not-named', TEA_LLM_API_KEY: 'sk-host-key' };

let dir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tea-edge-secrets-'));
  await writeFile(path.join(dir, 'secret-user.yaml'), AGENT);
});
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('tea-edge run --secret', () => {
  it('gives the agent the named variable only, and redacts it from stdout and the stored trace', async () => {
    const traces = path.join(dir, 'traces');
    const outcome = await runCli(
      ['run', path.join(dir, 'secret-user.yaml'), '--secret', 'SEARCH_TOKEN', '--trace-dir', traces, '--stream'],
      variables,
    );
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('Bearer [REDACTED]');
    expect(outcome.stdout).toContain('"other":true');
    expect(outcome.stdout + outcome.stderr).not.toContain(TOKEN);
    const stored = await Promise.all(
      (await readdir(traces, { recursive: true })).map((file) =>
        readFile(path.join(traces, file), 'utf8').catch(() => ''),
      ),
    );
    expect(stored.join('')).toContain('[REDACTED]');
    expect(stored.join('')).not.toContain(TOKEN);
  });

  it('without --secret the agent gets none', async () => {
    const outcome = await runCli(['run', path.join(dir, 'secret-user.yaml')], variables);
    expect(JSON.parse(outcome.stdout).seen).toEqual({ header: 'Bearer ', other: true });
  });

  it('refuses a secret that is not set, the model key by name or by value, and a name also given as --env', async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [['--secret', 'MISSING'], variables, 'MISSING is not set'],
      [['--secret', 'TEA_LLM_API_KEY'], variables, "TEA_LLM_API_KEY holds the host's model key"],
      [['--secret', 'MY_COPY'], { ...variables, MY_COPY: 'sk-host-key' }, 'MY_COPY: it holds the model key in use'],
      [['--secret', 'SEARCH_TOKEN', '--env', 'SEARCH_TOKEN'], variables, 'a secret is never also a plain env value'],
      [['--secret', '1BAD'], variables, 'is not a variable name'],
    ];
    for (const [flags, environment, words] of cases) {
      const outcome = await runCli(['run', path.join(dir, 'secret-user.yaml'), ...flags], environment);
      expect({ flags, code: outcome.code }).toEqual({ flags, code: 2 });
      expect(outcome.stderr).toContain(words);
      expect(outcome.stdout + outcome.stderr).not.toContain('sk-host-key');
    }
  });
});

describe('tea-edge serve with TEA_AGENT_SECRETS', () => {
  it('runs get the named secrets; answers and stored events carry them redacted', async () => {
    const { url, child } = await startServe(
      ['--port', '0', '--agents', dir, '--trace-dir', path.join(dir, 'serve-traces')],
      { ...variables, TEA_AGENT_SECRETS: 'SEARCH_TOKEN' },
    );
    children.push(child);
    const response = await fetch(`${url}/agents/secret-user/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({
      status: 'completed',
      state: { seen: { header: 'Bearer [REDACTED]', other: true } },
    });
    const events = await (await fetch(`${url}/runs/${JSON.parse(text).run_id}/events`)).text();
    expect(events).toContain('[REDACTED]');
    expect(text + events).not.toContain(TOKEN);
  }, 30_000);

  it('a named secret that is not set stops serve at start (exit 2), naming it', async () => {
    const outcome = await runCli(['serve', '--port', '0', '--agents', dir], {
      TEA_AGENT_SECRETS: 'SEARCH_TOKEN,NOT_THERE',
      SEARCH_TOKEN: TOKEN,
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('NOT_THERE is not set');
  }, 30_000);
});
