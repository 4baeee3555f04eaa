/** `tea-edge run --env NAME` and `settings.env`: templates read only the variables named, never the model key. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const AGENT = `name: env-echo
settings:
  env: [TEA_TEST_LISTED, TEA_TEST_UNSET]
nodes:
  - name: read
    run:
      type: expression
      value: "{{ {'listed': env.TEA_TEST_LISTED, 'flagged': env.TEA_TEST_FLAGGED, 'hidden': env.TEA_TEST_HIDDEN is none, 'unset': env.TEA_TEST_UNSET is none, 'count': env | length} }}"
      output_key: seen
`;

const KEY_AGENT = `name: env-key
settings:
  env: [LLM_API_KEY]
nodes:
  - name: read
    run: {type: expression, value: "{{ env.LLM_API_KEY }}"}
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tea-edge-env-'));
  await writeFile(path.join(dir, 'env.yaml'), AGENT);
  await writeFile(path.join(dir, 'key.yaml'), KEY_AGENT);
});

const variables = {
  TEA_TEST_LISTED: 'from-settings',
  TEA_TEST_FLAGGED: 'from-flag',
  TEA_TEST_HIDDEN: 'not-passed',
  TEA_LLM_API_KEY: 'sk-host-key',
};

describe('tea-edge run --env', () => {
  it('passes the variables named in settings.env and by --env, and nothing else', async () => {
    const outcome = await runCli(['run', path.join(dir, 'env.yaml'), '--env', 'TEA_TEST_FLAGGED'], variables);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    const state = JSON.parse(outcome.stdout) as { seen: Record<string, unknown> };
    expect(state.seen).toEqual({ listed: 'from-settings', flagged: 'from-flag', hidden: true, unset: true, count: 2 });
  });

  it('without --env or settings.env, env is empty (env.X is none)', async () => {
    const outcome = await runCli(['run', path.join(dir, 'env.yaml')], { ...variables, TEA_TEST_LISTED: '' });
    const state = JSON.parse(outcome.stdout) as { seen: Record<string, unknown> };
    expect(state.seen).toEqual({ listed: '', hidden: true, unset: true, count: 1 });
  });

  it('refuses to name the model key, by name or by value', async () => {
    const byName = await runCli(['run', path.join(dir, 'env.yaml'), '--env', 'TEA_LLM_API_KEY'], variables);
    expect(byName.code).toBe(2);
    expect(byName.stderr).toContain("TEA_LLM_API_KEY holds the host's model key, which templates never see");
    expect(byName.stdout).not.toContain('sk-host-key');
    const byValue = await runCli(['run', path.join(dir, 'env.yaml'), '--env', 'MY_COPY'], {
      ...variables,
      MY_COPY: 'sk-host-key',
    });
    expect(byValue.code).toBe(2);
    expect(byValue.stderr).toContain('MY_COPY: it holds the model key in use');
    const settings = await runCli(['validate', path.join(dir, 'key.yaml')], variables);
    expect(settings.code).toBe(2);
    expect(settings.stderr).toContain("settings.env: LLM_API_KEY holds the host's model key");
  });

  it('the usage text documents the flag', async () => {
    const help = await runCli(['run', '--help']);
    expect(help.stdout).toContain('--env <NAME>');
  });
});
