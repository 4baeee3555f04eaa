/** `tea-edge validate`: graph warnings (TEA warns too), and `--strict` turning them into positioned errors. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const FILE = 'tests/graph/fixtures/unrouted-node.yaml';

describe('tea-edge validate --strict', () => {
  it('without --strict: ok, exit 0, the warnings on stderr (and in --json)', async () => {
    const outcome = await runCli(['validate', FILE]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe('ok\n');
    expect(outcome.stderr).toContain("node 'orphan' can never run");
    expect(outcome.stderr).toContain('TEA follows only the first plain edge from __start__');
    const json = JSON.parse((await runCli(['validate', FILE, '--json'])).stdout);
    expect(json.ok).toBe(true);
    expect(json.warnings.map((warning: { message: string }) => warning.message).join('\n')).toContain(
      "node 'orphan' can never run",
    );
  });

  it('--strict: each warning is an error with file:line:column, exit 2', async () => {
    const outcome = await runCli(['validate', FILE, '--strict']);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    const lines = outcome.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`^${FILE}:14:5 INVALID_AGENT edge from __start__ to 'orphan' is never followed`),
    );
    expect(lines[1]).toMatch(new RegExp(`^${FILE}:8:11 INVALID_AGENT node 'orphan' can never run`));
  });

  it('--strict --json: the errors carry line, column and node', async () => {
    const outcome = await runCli(['validate', FILE, '--strict', '--json']);
    expect(outcome.code).toBe(2);
    const json = JSON.parse(outcome.stdout);
    expect(json.ok).toBe(false);
    expect(json.errors).toContainEqual(
      expect.objectContaining({ file: FILE, line: 8, column: 11, code: 'INVALID_AGENT', node: 'orphan' }),
    );
    expect(json.warnings).toEqual([]);
  });

  it('--strict on a clean file is ok', async () => {
    const outcome = await runCli(['validate', 'examples/tea-while-loop.yaml', '--strict']);
    expect(outcome.code).toBe(0);
  });
});
