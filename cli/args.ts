/**
 * Command-line arguments, parsed by `node:util` `parseArgs` (strict: unknown options and missing
 * values are usage errors). Each command names its boolean and value flags; the result keeps the
 * shape the commands read: positionals and a map of flags.
 */
import { parseArgs as parseNodeArgs } from 'node:util';
import { editDistance, quoteText, messageOf } from '../src/host.js';

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
  /** Repeatable value flags (`--env A --env B`), each with every value in order. */
  lists: Map<string, string[]>;
}

/** Bad usage: printed as one line, exit 2. */
export class UsageError extends Error {}

export function parseArgs(
  argv: string[],
  booleanFlags: ReadonlySet<string>,
  valueFlags: ReadonlySet<string>,
  repeatableFlags: ReadonlySet<string> = new Set(),
): ParsedArgs {
  const options: Record<string, { type: 'boolean' | 'string'; multiple?: boolean }> = {};
  for (const name of booleanFlags) options[name] = { type: 'boolean' };
  for (const name of valueFlags) options[name] = { type: 'string' };
  for (const name of repeatableFlags) options[name] = { type: 'string', multiple: true };
  let parsed: ReturnType<typeof parseNodeArgs>;
  try {
    parsed = parseNodeArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(usageMessage(error, Object.keys(options)));
  }
  const flags = new Map<string, string | true>();
  const lists = new Map<string, string[]>();
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === true || typeof value === 'string') flags.set(name, value);
    else if (Array.isArray(value))
      lists.set(
        name,
        value.filter((item): item is string => typeof item === 'string'),
      );
  }
  return { positionals: parsed.positionals, flags, lists };
}

/** Node's parse errors, shortened to what the user typed wrong. */
function usageMessage(error: unknown, known: readonly string[]): string {
  const message = messageOf(error);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown !== null) return `unknown option ${unknown[1]}${suggestion(unknown[1]!.replace(/^-+/, ''), known)}`;
  const missing = /Option '(--[\w-]+)[^']*' argument missing/.exec(message);
  if (missing !== null) return `${missing[1]} needs a value`;
  const ambiguous = /Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
  if (ambiguous !== null)
    return `${ambiguous[1]} needs a value (write ${ambiguous[1]}=<value> for a value starting with '-')`;
  return message.split('\n')[0]!;
}

function suggestion(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best === undefined ? '' : ` (did you mean --${best}?)`;
}

/** True when the arguments ask for help (`--help` or `-h` before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const argument of argv) {
    if (argument === '--') return false;
    if (argument === '--help' || argument === '-h') return true;
  }
  return false;
}

export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** A whole-number flag within [minimum, maximum], or undefined when absent. */
export function integerFlag(args: ParsedArgs, name: string, minimum: number, maximum: number): number | undefined {
  const text = stringFlag(args, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new UsageError(`--${name} must be a whole number from ${minimum} to ${maximum}, got ${quoteText(text, 40)}`);
  }
  return value;
}
