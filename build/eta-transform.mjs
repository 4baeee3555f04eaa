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
  return [
    `// Compiled at build time from ${fileName.split(/[\\/]/).pop()} by build/eta-transform.mjs`,
    'const config = { escapeFunction: (value) => String(value), filterFunction: (value) => String(value) };',
    'const host = { config, render() { throw new Error("includes are not supported in prompt templates"); }, renderAsync() { throw new Error("includes are not supported"); } };',
    `function template(it, options) {\n${body}\n}`,
    'export default function render(data) { return template.call(host, data ?? {}, {}); }',
    '',
  ].join('\n');
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
