/**
 * `tea-edge bench [--json]`: runs every benchmark in bench/*.bench.ts (built into dist/bench.js)
 * and prints a table, or one JSON object per line: {name, value, unit, baseline_value?, ratio?}.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from '../../bench/bench-result.js';
import { parseArgs } from '../args.js';
import type { CliIo } from '../io.js';

export async function benchCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(['json']), new Set());
  const json = args.flags.has('json');
  const only = args.positionals;
  const bundle = new URL('./bench.js', import.meta.url);
  if (!existsSync(fileURLToPath(bundle))) {
    io.stderr('tea-edge bench: dist/bench.js is missing; run `npm run build`\n');
    return 2;
  }
  const { suites } = (await import(bundle.href)) as { suites: Array<{ name: string; run: () => Promise<BenchResult[]> }> };
  let failed = false;
  if (!json) io.stdout(`${'benchmark'.padEnd(58)} ${'value'.padStart(14)} unit          baseline      ratio\n`);
  for (const suite of suites) {
    if (only.length > 0 && !only.some((name) => suite.name.includes(name))) continue;
    let results: BenchResult[];
    try {
      results = await suite.run();
    } catch (error) {
      failed = true;
      io.stderr(`bench ${suite.name} failed: ${(error as Error).message}\n`);
      continue;
    }
    for (const result of results) {
      if (json) io.stdout(JSON.stringify(result) + '\n');
      else {
        const baseline = result.baseline_value !== undefined ? format(result.baseline_value) : '';
        const ratio = result.ratio !== undefined ? `${format(result.ratio)}×` : '';
        io.stdout(`${result.name.padEnd(58)} ${format(result.value).padStart(14)} ${result.unit.padEnd(13)} ${baseline.padStart(10)} ${ratio.padStart(10)}\n`);
      }
    }
  }
  return failed ? 1 : 0;
}

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(Math.abs(value) >= 10 ? 1 : 3);
}
