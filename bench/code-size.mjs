#!/usr/bin/env node
/**
 * The largest files and functions of src/ (issue 11 asks for both in the closing note).
 *
 *   node bench/code-size.mjs [--top N] [--json] [directory]
 *
 * A file's size is its line count; a function's is the number of lines from its first to its last
 * line. Functions are every function declaration, method, accessor, constructor, function
 * expression and arrow function, found with the TypeScript parser (nested ones counted on their
 * own too, so an outer function includes its inner ones, as a reader sees it). Test files and
 * declaration files are left out. Not a timed benchmark: a measurement of the source.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every function-like node of a source text: `{ name, line, lines }` (line is 1-based). */
export function functionSizes(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: functionName(node, source), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The name a reader would look for: the declared name, or the variable/property it is assigned to. */
function functionName(node, source) {
  if (node.name !== undefined) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (
    parent !== undefined &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name !== undefined
  ) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

/** The .ts files under `directory`, tests and declarations left out. */
export function sourceFiles(directory) {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') && !full.endsWith('.test.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

/** The `top` largest files and functions of `directory`. */
export function measure(directory, top = 5) {
  const files = [];
  const functions = [];
  for (const file of sourceFiles(directory)) {
    const text = readFileSync(file, 'utf8');
    const relative = path.relative(ROOT, file);
    files.push({ file: relative, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) });
    for (const fn of functionSizes(file, text)) functions.push({ file: relative, ...fn });
  }
  files.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
  functions.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
  return {
    files: files.slice(0, top),
    functions: functions.slice(0, top),
    file_count: files.length,
    function_count: functions.length,
  };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt === -1 ? 5 : Number(args[topAt + 1]);
  const directory = path.resolve(
    args.find((arg, index) => !arg.startsWith('--') && index !== topAt + 1) ?? path.join(ROOT, 'src'),
  );
  const result = measure(directory, top);
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } else {
    process.stdout.write(
      `${result.file_count} files, ${result.function_count} functions in ${path.relative(ROOT, directory) || '.'}\n\nlargest files (lines):\n`,
    );
    for (const entry of result.files) process.stdout.write(`  ${String(entry.lines).padStart(5)}  ${entry.file}\n`);
    process.stdout.write('\nlargest functions (lines):\n');
    for (const entry of result.functions)
      process.stdout.write(`  ${String(entry.lines).padStart(5)}  ${entry.file}:${entry.line} ${entry.name}\n`);
  }
}
