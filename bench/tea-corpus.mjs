#!/usr/bin/env node
/**
 * How many of TEA's example agents load in tea-edge (issue 26), measured, not remembered.
 *
 *   node bench/tea-corpus.mjs <TEA repository> [--json] [--list] [-- validate options...]
 *
 * <TEA repository> is a checkout or a bare git directory of fabceolin/the_edge_agent (the
 * `fetch` tool gives one); its `examples/` folder is copied out of HEAD into a temporary folder.
 * An agent is a YAML file there whose top level is a mapping with a `nodes:` list. All of them go
 * through one `tea-edge validate --json` (needs `node build/build.mjs` first), and each agent's
 * errors are sorted into blockers: Python blocks, `provider: shell`, unknown actions, other
 * Prolog/language problems, and the rest. Prints the count that load, the blockers with how many
 * agents each blocks (and blocks alone), and with --list every agent and its blockers.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const own = dashes === -1 ? argv : argv.slice(0, dashes);
const validateOptions = dashes === -1 ? [] : argv.slice(dashes + 1);
const repository = own.find((argument) => !argument.startsWith('-'));
if (repository === undefined) {
  console.error('usage: node bench/tea-corpus.mjs <TEA checkout or git dir> [--json] [--list] [-- validate options]');
  process.exit(64);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'tea-corpus-'));
try {
  const gitDir = existsSync(path.join(repository, '.git')) ? path.join(repository, '.git') : repository;
  const archive = execFileSync('git', ['--git-dir', gitDir, 'archive', 'HEAD', 'examples'], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', work], { input: archive });
  const commit = execFileSync('git', ['--git-dir', gitDir, 'rev-parse', '--short', 'HEAD']).toString().trim();
  const agents = yamlFiles(path.join(work, 'examples'))
    .filter(isAgent)
    .map((file) => path.relative(work, file))
    .sort();
  const result = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bin/tea-edge.js'), 'validate', '--json', ...validateOptions, ...agents],
    { cwd: work, maxBuffer: 1 << 28, encoding: 'utf8' },
  );
  const report = JSON.parse(result.stdout);
  const byFile = new Map(agents.map((file) => [file, []]));
  for (const error of report.errors) byFile.get(error.file)?.push(error);
  const rows = agents.map((file) => ({ file, blockers: [...new Set(byFile.get(file).map(blockerOf))].sort() }));
  const loaded = rows.filter((row) => row.blockers.length === 0);
  const tally = new Map();
  for (const row of rows) {
    for (const blocker of row.blockers) {
      const entry = tally.get(blocker) ?? { blocker, agents: 0, only: 0 };
      entry.agents += 1;
      if (row.blockers.length === 1) entry.only += 1;
      tally.set(blocker, entry);
    }
  }
  const blockers = [...tally.values()].sort((a, b) => b.agents - a.agents || a.blocker.localeCompare(b.blocker));
  const warned = new Set(report.warnings.map((warning) => warning.file));
  if (own.includes('--json')) {
    console.log(
      JSON.stringify(
        {
          commit,
          agents: agents.length,
          loaded: loaded.length,
          loaded_with_warnings: loaded.filter((row) => warned.has(row.file)).length,
          blockers,
          rows,
        },
        null,
        2,
      ),
    );
  } else {
    console.log(
      `TEA ${commit}: ${loaded.length} of ${agents.length} example agents load (${loaded.filter((row) => warned.has(row.file)).length} of them with warnings)${validateOptions.length > 0 ? ` [validate ${validateOptions.join(' ')}]` : ''}`,
    );
    console.log('\nblocker                                   agents  only blocker');
    for (const entry of blockers)
      console.log(`${entry.blocker.padEnd(42)}${String(entry.agents).padStart(6)}  ${String(entry.only).padStart(6)}`);
    if (own.includes('--list')) {
      console.log('\nloaded:');
      for (const row of loaded) console.log(`  ${row.file}`);
      console.log('\nnot loaded:');
      for (const row of rows) if (row.blockers.length > 0) console.log(`  ${row.file}: ${row.blockers.join(', ')}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function yamlFiles(folder) {
  return readdirSync(folder).flatMap((name) => {
    const full = path.join(folder, name);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return /\.ya?ml$/i.test(name) ? [full] : [];
  });
}

function isAgent(file) {
  try {
    const value = parse(readFileSync(file, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) && Array.isArray(value.nodes);
  } catch {
    return false;
  }
}

/** One word for what an error is about, so agents can be counted by what stops them. */
function blockerOf(error) {
  const message = error.message;
  if (error.code === 'UNSUPPORTED_LANGUAGE' || error.code === 'PYTHON_UNAVAILABLE')
    return /python/i.test(message) ? 'python block' : `language: ${message.slice(0, 40)}`;
  if (/provider: shell|`shell`/.test(message)) return 'provider: shell';
  if (error.code === 'UNKNOWN_ACTION') return `unknown action ${message.match(/action '([^']+)'/)?.[1] ?? ''}`.trim();
  if (/unknown key `([^`]+)`/.test(message))
    return `unknown key ${message.match(/unknown key `([^`]+)`/)[1]} (${error.field ?? 'top'})`.replace(
      /\(nodes?\.\d+\.?/,
      '(node ',
    );
  if (error.field !== undefined) return `${error.code} at ${error.field.replace(/\d+/g, 'N')}`;
  return `${error.code}: ${message.slice(0, 50)}`;
}
