/** `tea-edge --help` lists every subcommand with the synopsis its own `--help` starts with. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../support/run-cli.js';

/** The subcommands main.ts dispatches (its COMMANDS table). */
const COMMANDS = [...readFileSync(path.join(ROOT, 'cli/main.ts'), 'utf8').matchAll(/^ {2}(\w+): \w+Command,$/gm)].map(
  (match) => match[1]!,
);

describe('tea-edge --help', () => {
  it('lists each subcommand as its own help describes it', async () => {
    expect(COMMANDS).toEqual(expect.arrayContaining(['run', 'resume', 'validate', 'serve', 'probe', 'bench']));
    const overview = await runCli(['--help']);
    expect(overview.code).toBe(0);
    for (const command of COMMANDS) {
      const own = await runCli([command, '--help']);
      expect(own.code, command).toBe(0);
      const synopsis = own.stdout.split('\n')[0]!;
      expect(synopsis, command).toMatch(new RegExp(`^tea-edge ${command} `));
      expect(overview.stdout, command).toContain(`  ${synopsis}\n`);
    }
  }, 60_000);
});
