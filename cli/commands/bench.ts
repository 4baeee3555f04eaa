/**
 * `tea-edge bench [suite ...] [--json]`: runs the benchmarks in bench/*.bench.ts (built into
 * dist/bench.js), all of them or the suites named (`tea-edge bench engine reasoning`; a word
 * matches every suite whose name contains it), and prints a table, or with `--json` one JSON
 * object per line: `{suite, name, value, unit, baseline_value?, ratio?}` for every figure, and
 * `{suite, error}` for a suite that failed, so a script can compare two runs.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../../bench/bench-result.js';
import { parseArgs, UsageError } from '../args.js';
import type { CliIo } from '../io.js';
import { messageOf } from '../../src/host.js';

interface Suite {
  name: string;
  run: () => Promise<BenchResult[]>;
}

export async function benchCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(['json']), new Set());
  const json = args.flags.has('json');
  const bundle = new URL('./bench.js', import.meta.url);
  if (!existsSync(fileURLToPath(bundle))) {
    io.stderr('tea-edge bench: dist/bench.js is missing; run `npm run build`\n');
    return 2;
  }
  const { suites } = (await import(bundle.href)) as { suites: Suite[] };
  const chosen = chooseSuites(suites, args.positionals);
  let failed = false;
  if (!json) io.stdout(`${'benchmark'.padEnd(58)} ${'value'.padStart(14)} unit          baseline      ratio\n`);
  for (const suite of chosen) {
    let results: BenchResult[];
    try {
      results = await suite.run();
    } catch (error) {
      failed = true;
      const message = messageOf(error);
      if (json) io.stdout(JSON.stringify({ suite: suite.name, error: message }) + '\n');
      io.stderr(`bench ${suite.name} failed: ${message}\n`);
      continue;
    }
    for (const result of results) {
      if (json) io.stdout(JSON.stringify({ suite: suite.name, ...result }) + '\n');
      else {
        const baseline = result.baseline_value !== undefined ? format(result.baseline_value) : '';
        const ratio = result.ratio !== undefined ? `${format(result.ratio)}×` : '';
        io.stdout(
          `${result.name.padEnd(58)} ${format(result.value).padStart(14)} ${result.unit.padEnd(13)} ${baseline.padStart(10)} ${ratio.padStart(10)}\n`,
        );
      }
    }
  }
  return failed ? 1 : 0;
}

/** The suites to run: all, or each whose name contains one of the words (a word matching none is a usage error). */
function chooseSuites(suites: Suite[], words: string[]): Suite[] {
  if (words.length === 0) return suites;
  const unknown = words.filter((word) => !suites.some((suite) => suite.name.includes(word)));
  if (unknown.length > 0)
    throw new UsageError(
      `no benchmark suite named ${unknown.map((word) => `'${word}'`).join(', ')}; suites: ${suites.map((suite) => suite.name).join(', ')}`,
    );
  return suites.filter((suite) => words.some((word) => suite.name.includes(word)));
}

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(Math.abs(value) >= 10 ? 1 : 3);
}
