/**
 * The CLI's seams (issue 13): `tea-edge run` gives a run its own folder as the agent-file source
 * (agent.* with {file: …}) and `--files DIR` as the file root; without --files the file actions
 * fail with one line saying how to enable them. Runs the built bin (node build/build.mjs first).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/run-cli.js';

describe('tea-edge run: agent files and --files', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), 'tea-cli-files-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('runs examples/tea-agent-files.yaml: the sub-agent files of its folder answer', async () => {
    const { code, stdout, stderr } = await runCli([
      'run',
      'examples/tea-agent-files.yaml',
      '--input',
      '{"ticket":"charged twice","customer":"ada"}',
    ]);
    expect(code, stderr).toBe(0);
    const state = JSON.parse(stdout);
    expect(state).toMatchObject({ category: 'billing', verdict: 'approve' });
    expect(state.reply).toContain('refunded');
    expect(state.triaged.state).toMatchObject({ task: 'charged twice', customer: 'ada' });
  });

  it('--stream shows the sub-run events nested under the calling node', async () => {
    const { code, stdout } = await runCli(['run', 'examples/tea-agent-files.yaml', '--stream']);
    expect(code).toBe(0);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const nested = events.filter((event) => event.sub_run !== undefined);
    expect(nested.length).toBeGreaterThan(10);
    expect(new Set(nested.map((event) => event.node))).toEqual(new Set(['triage', 'review']));
    expect(new Set(nested.map((event) => event.sub_run[0].file))).toEqual(
      new Set(['tea-agent-files-triage.yaml', 'tea-agent-files-check.yaml']),
    );
    expect(events.filter((event) => event.type === 'done')).toHaveLength(1);
  });

  it('runs examples/tea-file-notes.yaml with --files: the files are written inside the folder', async () => {
    const root = path.join(work, 'files');
    mkdirSync(root, { recursive: true });
    cpSync(path.join(ROOT, 'examples/tea-file-notes.yaml'), path.join(work, 'notes.yaml'));
    const { code, stdout, stderr } = await runCli([
      'run',
      path.join(work, 'notes.yaml'),
      '--files',
      root,
      '--input',
      '{"topic":"sencha"}',
    ]);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ note_path: 'notes/sencha.md', summary_path: 'summaries/sencha.txt' });
    expect(readFileSync(path.join(root, 'summaries/sencha.txt'), 'utf8')).toContain('Oolong');
    expect(readFileSync(path.join(root, 'notes/sencha.md'), 'utf8')).toContain('# sencha');
  });

  it('without --files: exit 1 and one FORBIDDEN line saying how to enable files; a missing folder is a usage error', async () => {
    const { code, stderr } = await runCli(['run', 'examples/tea-file-notes.yaml']);
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^FORBIDDEN node=save_note field=path .*--files DIR/);
    const missing = await runCli(['run', 'examples/tea-file-notes.yaml', '--files', path.join(work, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--files');
  });

  it('an agent file that is a symbolic link out of the folder is refused', async () => {
    const folder = path.join(work, 'agents');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      path.join(work, 'outside.yaml'),
      'name: outside\nnodes:\n  - { name: o, uses: core.return, with: { response: leaked } }\n',
    );
    symlinkSync(path.join(work, 'outside.yaml'), path.join(folder, 'inner.yaml'));
    writeFileSync(
      path.join(folder, 'main.yaml'),
      'name: main\nnodes:\n  - { name: m, uses: agent.dispatch, with: { agent: { file: inner.yaml }, task: x }, output: got }\n',
    );
    const { code, stderr } = await runCli(['run', path.join(folder, 'main.yaml')]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^INVALID_AGENT node=m field=agent .*leads out of folder/);
  });

  it('validate follows literal agent-file references: a missing file and a broken sub-agent are errors with their places', async () => {
    const folder = path.join(work, 'validate');
    mkdirSync(path.join(folder, 'sub'), { recursive: true });
    writeFileSync(
      path.join(folder, 'top.yaml'),
      'name: top\nnodes:\n  - name: a\n    uses: agent.dispatch\n    with: { agent: { file: missing.yaml }, task: x }\n  - { name: b, uses: agent.sequential, with: { agents: [{ file: sub/broken.yaml }, { file: sub/broken.yaml }] } }\n',
    );
    writeFileSync(
      path.join(folder, 'sub/broken.yaml'),
      'name: broken\nnodes:\n  - { name: z, uses: no.such }\n  - { name: y, uses: agent.dispatch, with: { agent: { file: gone.yaml }, task: x } }\n',
    );
    const { code, stdout } = await runCli(['validate', '--json', path.join(folder, 'top.yaml')]);
    expect(code).toBe(2);
    const errors = JSON.parse(stdout).errors as Array<{ file: string; line: number; code: string; node: string }>;
    expect(errors.map((error) => [path.basename(error.file), error.code, error.node, error.line])).toEqual([
      ['top.yaml', 'NOT_FOUND', 'a', 5],
      ['broken.yaml', 'UNKNOWN_ACTION', 'z', 3],
    ]);
    const ok = await runCli(['validate', 'examples/tea-agent-files.yaml']);
    expect(ok.code, ok.stderr).toBe(0);
  });
});
