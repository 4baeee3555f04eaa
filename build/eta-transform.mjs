// Compiles the runtime's own Eta templates (src/prompts/*.eta) to plain ES modules at build time,
// so no runtime ever compiles a template from a string (Workers and strict CSP refuse it).
// One transform, used by the esbuild build (etaEsbuildPlugin) and by vitest (etaVitePlugin).
import { readFile } from 'node:fs/promises';
import { Eta } from 'eta/core';

const eta = new Eta({ autoEscape: false, useWith: false, varName: 'it', autoTrim: [false, 'nl'] });

/** Returns the source of an ES module whose default export renders the template: (data) => string. */
export function compileEtaModule(source, fileName) {
  let body;
  try {
    body = eta.compileToString(source);
  } catch (error) {
    throw new Error(`${fileName}: cannot compile Eta template: ${error.message}`);
  }
  body = stripUnusedHelpers(body, source);
  return [
    `// Compiled at build time from ${fileName.split(/[\\/]/).pop()} by build/eta-transform.mjs`,
    'const config = { escapeFunction: (value) => String(value), filterFunction: (value) => String(value) };',
    'const host = { config, render() { throw new Error("includes are not supported in prompt templates"); }, renderAsync() { throw new Error("includes are not supported"); } };',
    `function template(it, options) {\n${body}\n}`,
    'export default function render(data) { return template.call(host, data ?? {}, {}); }',
    '',
  ].join('\n');
}

/**
 * Eta's compiled body declares include/layout/block helpers in every template; prompt templates use
 * none of them, so they are dropped (each template is ~1 KB smaller minified). A template that
 * mentions one keeps them all.
 */
function stripUnusedHelpers(body, source) {
  if (/\b(include|includeAsync|layout|block|blockAsync|capture|captureAsync|output)\s*\(/.test(source)) return body;
  const helpers = [
    /^let include = .*$/m,
    /^let includeAsync = .*$/m,
    /^function layout\(path, data\) \{\n[^}]*\n\}$/m,
    /^function output\(s\)\{.*\}$/m,
    /^function capture\(fn\)\{.*\}$/m,
    /^async function captureAsync\(fn\)\{.*\}$/m,
    /^function block\(name,fn\)\{.*\}$/m,
    /^async function blockAsync\(name,fn\)\{.*\}$/m,
    /^if \(__eta\.layout\) \{\n.*\n\}$/m,
  ];
  let stripped = body;
  for (const helper of helpers) {
    const next = stripped.replace(helper, '');
    if (next === stripped) return body; // Eta's output changed shape: keep it whole rather than guess
    stripped = next;
  }
  return stripped.replace(/\n{3,}/g, '\n\n');
}

export function etaEsbuildPlugin() {
  return {
    name: 'eta-templates',
    setup(build) {
      build.onLoad({ filter: /\.eta$/ }, async (args) => ({
        contents: compileEtaModule(await readFile(args.path, 'utf8'), args.path),
        loader: 'js',
      }));
    },
  };
}

export function etaVitePlugin() {
  return {
    name: 'eta-templates',
    enforce: 'pre',
    async load(id) {
      if (!id.endsWith('.eta')) return null;
      return { code: compileEtaModule(await readFile(id, 'utf8'), id), map: null };
    },
  };
}
