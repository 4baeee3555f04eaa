/** A small argv parser for the tea-edge CLI: positionals, `--flag value`, `--flag=value`, booleans. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], booleanFlags: ReadonlySet<string>, valueFlags: ReadonlySet<string>): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (!argument.startsWith('--')) {
      positionals.push(argument);
      continue;
    }
    const [name, inlineValue] = argument.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (booleanFlags.has(name)) {
      flags.set(name, true);
    } else if (valueFlags.has(name)) {
      const value = inlineValue ?? argv[++index];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, flags };
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}
