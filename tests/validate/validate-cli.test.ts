/**
 * The misspelled-agent corpus through the real CLI (`tea-edge validate`, `--json`, and `run`):
 * every problem on its own `file:line:column CODE message` line in file order, exit 2.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/run-cli.js';
import { AGENTS_DIR, MISTAKES } from './corpus.js';

const relative = (file: string) => path.relative(ROOT, path.join(AGENTS_DIR, file));

describe('tea-edge validate on the corpus', () => {
  for (const mistake of MISTAKES) {
    it(`${mistake.file}: prints ${mistake.problems.length === 1 ? 'its problem' : 'every problem'} and exits 2`, async () => {
      const file = relative(mistake.file);
      const outcome = await runCli(['validate', file]);
      expect(outcome.code).toBe(2);
      expect(outcome.stdout).toBe('');
      const lines = outcome.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(mistake.problems.length);
      mistake.problems.forEach((want, index) => {
        expect(lines[index]!.startsWith(`${file}:${want.line}:${want.column} ${want.code} `), lines[index]).toBe(true);
        expect(lines[index]).toContain(want.says);
      });
    });
  }

  it('--json lists the five mistakes for editors and CI, with node and field', async () => {
    const five = MISTAKES.find((mistake) => mistake.file === 'five-mistakes.yaml')!;
    const file = relative(five.file);
    const outcome = await runCli(['validate', '--json', file]);
    expect(outcome.code).toBe(2);
    const report = JSON.parse(outcome.stdout) as { ok: boolean; errors: Array<Record<string, unknown>> };
    expect(report.ok).toBe(false);
    expect(report.errors.map((error) => [error.line, error.column, error.code])).toEqual(
      five.problems.map((want) => [want.line, want.column, want.code]),
    );
    for (const [index, error] of report.errors.entries()) {
      expect(error.file).toBe(file);
      expect(error.message).toContain(five.problems[index]!.says);
      if (five.problems[index]!.node !== undefined) expect(error.node).toBe(five.problems[index]!.node);
      if (five.problems[index]!.field !== undefined) expect(error.field).toBe(five.problems[index]!.field);
    }
  });

  it('--json says ok for a good file, and reports ignored TEA keys as warnings', async () => {
    const file = relative('accepted-tea-keys.yaml');
    const outcome = await runCli(['validate', '--json', file]);
    expect(outcome.code).toBe(0);
    const report = JSON.parse(outcome.stdout) as {
      ok: boolean;
      errors: unknown[];
      warnings: Array<{ file: string; message: string }>;
    };
    expect(report).toMatchObject({ ok: true, errors: [] });
    expect(report.warnings.map((warning) => warning.message).join('\n')).toContain('`observability`');
    const text = await runCli(['validate', file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('ok\n');
    expect(text.stderr).toContain(`${file}: warning:`);
  });

  it('several files: each problem names its own file', async () => {
    const outcome = await runCli(['validate', '--json', relative('param-promt.yaml'), relative('provider-olama.yaml')]);
    const report = JSON.parse(outcome.stdout) as { errors: Array<{ file: string; code: string }> };
    expect(report.errors.map((error) => [error.file, error.code])).toEqual([
      [relative('param-promt.yaml'), 'INVALID_PARAMS'],
      [relative('provider-olama.yaml'), 'UNKNOWN_PROVIDER'],
    ]);
  });

  it('tea-edge run refuses the file with every problem, before any model call', async () => {
    const five = MISTAKES.find((mistake) => mistake.file === 'five-mistakes.yaml')!;
    const file = relative(five.file);
    const outcome = await runCli(['run', file, '--input', '{}'], { TEA_LLM_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(outcome.code).not.toBe(0);
    const lines = outcome.stderr
      .trimEnd()
      .split('\n')
      .filter((line) => line.startsWith(`${file}:`));
    expect(lines.map((line) => line.split(' ')[0])).toEqual(
      five.problems.map((want) => `${file}:${want.line}:${want.column}`),
    );
  });
});
