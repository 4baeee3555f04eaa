/**
 * The README and docs/first-agent.md say what a newcomer types: their `node bin/tea-edge.js`
 * commands run as written (those that need no model server, no network and no second terminal),
 * the agents they write load, no command fetches tea-edge from the registry, the npm scripts they
 * name exist, and the command-line summary matches each command's own --help.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/run-cli.js';

const DOCS = ['README.md', 'docs/first-agent.md'];
const text = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const shellBlocks = (markdown: string) => [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
/** Every command line: the lines of ```sh blocks (comments cut) and inline code that starts with a command. */
function commandsOf(markdown: string): string[] {
  const lines = shellBlocks(markdown).flatMap((block) => block.split('\n'));
  const inline = [...markdown.matchAll(/`((?:node bin\/tea-edge\.js|npx|npm) [^`]+)`/g)].map((match) => match[1]!);
  return [...lines, ...inline].map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');
}

/** Why a command is not run here, or undefined when it is cheap and self-contained. */
function notRunBecause(command: string): string | undefined {
  if (!command.startsWith('node bin/tea-edge.js ')) return 'not a tea-edge command';
  if (/<[^>]+>/.test(command)) return 'has a placeholder';
  if (/ serve\b/.test(command)) return 'starts a server';
  if (/localhost|--llm-base-url/.test(command)) return 'needs a model server';
  if (/--replay|--record/.test(command)) return 'needs a recording';
  if (/examples\/mcp\//.test(command)) return 'needs the MCP server of the example';
  if (/tea-web-scrape-summary/.test(command)) return 'needs the internet';
  return undefined;
}

/** The agent files the docs ask the reader to save: the YAML block of a complete agent (`name:` first) before the file name. */
function savedAgents(): Record<string, string> {
  const blocks = DOCS.flatMap((file) =>
    [...text(file).matchAll(/```yaml\n(name: ([\w-]+)\n[\s\S]*?)```/g)].map((match) => ({
      name: match[2]!,
      source: match[1]!,
    })),
  );
  const named: Record<string, string> = {
    'product-card': 'card.yaml',
    greeter: 'greeter.yaml',
    'ticket-triage': 'triage.yaml',
  };
  return Object.fromEntries(
    blocks.filter((block) => named[block.name] !== undefined).map((block) => [named[block.name]!, block.source]),
  );
}

const directory = mkdtempSync(path.join(tmpdir(), 'tea-edge-readme-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the commands the README and the first-agent guide give', () => {
  it("never fetch tea-edge from the registry (npx runs the repository's bin or an installed one only)", () => {
    for (const file of DOCS) {
      for (const command of commandsOf(text(file)))
        expect(command, `${file}: ${command}`).not.toMatch(/\bnpx (?!--no-install\b)(?:-\S+ )*tea-edge\b/);
    }
  });

  it('name npm scripts that exist', () => {
    const scripts = (JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const file of DOCS) {
      for (const match of text(file).matchAll(/npm (?:run ([\w:-]+)|(start|test))\b/g))
        expect(Object.keys(scripts), `${file}: ${match[0]}`).toContain(match[1] ?? match[2]);
    }
  });

  it('save three agents, each of which loads', async () => {
    const agents = savedAgents();
    expect(Object.keys(agents).sort()).toEqual(['card.yaml', 'greeter.yaml', 'triage.yaml']);
    for (const [file, source] of Object.entries(agents)) writeFileSync(path.join(directory, file), source);
    symlinkSync(path.join(ROOT, 'bin'), path.join(directory, 'bin'));
    symlinkSync(path.join(ROOT, 'examples'), path.join(directory, 'examples'));
    const validated = await runCli(['validate', ...Object.keys(agents).map((file) => path.join(directory, file))]);
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
  });

  it('run as written, each exit 0 (those that need no server, network or recording)', async () => {
    const commands = DOCS.flatMap((file) =>
      commandsOf(text(file))
        .filter((command) => notRunBecause(command) === undefined)
        .map((command) => ({ file, command })),
    );
    expect(commands.length).toBeGreaterThanOrEqual(8);
    expect(commands.map(({ command }) => command)).toEqual(
      expect.arrayContaining([expect.stringContaining('tea-file-notes.yaml --files')]),
    );
    for (const { file, command } of commands) {
      const outcome = await promisify(execFile)('sh', ['-c', command], {
        cwd: directory,
        env: { ...process.env, TEA_LLM_BASE_URL: '', TEA_LLM_MODEL: '' },
      }).then(
        (result) => ({ code: 0, ...result }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: error.code ?? 1,
          stdout: error.stdout ?? '',
          stderr: error.stderr ?? '',
        }),
      );
      expect({ file, command, code: outcome.code, stderr: outcome.stderr.slice(0, 500) }).toEqual({
        file,
        command,
        code: 0,
        stderr: '',
      });
    }
  }, 180_000);

  it('summarise each command as its own --help does', async () => {
    const readme = text('README.md');
    for (const command of ['run', 'resume', 'validate', 'serve', 'probe', 'bench']) {
      const synopsis = (await runCli([command, '--help'])).stdout.split('\n')[0]!;
      expect(readme, command).toContain(`\n${synopsis}\n`);
    }
  }, 60_000);
});

describe('the documentation', () => {
  it('carries no work log: issue numbers, scratch paths, where a figure was measured by whom', () => {
    const files = [
      'README.md',
      ...readdirSync(path.join(ROOT, 'docs'))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
    ];
    for (const file of files) {
      const markdown = text(file);
      expect(markdown, file).not.toMatch(/\(issue \d+\)|, issue \d+\)|\bissue #?\d+\b/i);
      expect(markdown, file).not.toMatch(/\/tmp\/plcand|scratch directory|shared (2-core )?build machine/i);
    }
  });

  it("never tells anyone to run tea-edge through a bare npx (it would fetch the registry's package)", async () => {
    const { stdout } = await promisify(execFile)('git', ['ls-files', '*.md'], { cwd: ROOT });
    const files = stdout.split('\n').filter((file) => file !== '' && !file.startsWith('node_modules/'));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) expect(text(file), file).not.toMatch(/\bnpx (?!--no-install\b)(?:-\S+ )*tea-edge\b/);
  });
});
