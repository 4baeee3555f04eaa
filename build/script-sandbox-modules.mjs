// The script sandboxes a worker bundle can include, one per language: the module that exports the
// sandbox and the export's name. The worker build (targets/30-worker.mjs) compiles its agents
// with every sandbox listed here, records which languages their code was compiled in, and bundles
// only those sandboxes (through `virtual:tea-script-sandboxes`), so a worker whose agents have no
// Lua carries no Lua VM. A new language (Prolog) adds one line here and nothing in the entries.
export const SCRIPT_SANDBOX_MODULES = [
  { language: 'lua', module: 'src/lua/lua-script-sandbox.ts', name: 'luaSandbox' },
  { language: 'prolog', module: 'src/prolog/prolog-script-sandbox.ts', name: 'prologSandbox' },
];

/** The languages this list knows, for checking a language named by hand (TEA_WORKER_SCRIPTS). */
export const SCRIPT_LANGUAGES = SCRIPT_SANDBOX_MODULES.map((entry) => entry.language);

/** ESM source importing the sandboxes of `languages` (from `root`) as one frozen ScriptSandboxes object, exported as `exportName`. */
export function sandboxesModuleSource(root, languages, exportName = 'default') {
  const chosen = SCRIPT_SANDBOX_MODULES.filter((entry) => languages.includes(entry.language));
  const imports = chosen.map(
    (entry, index) => `import { ${entry.name} as sandbox${index} } from ${JSON.stringify(`${root}/${entry.module}`)};`,
  );
  const fields = chosen.map((entry, index) => `${JSON.stringify(entry.language)}: sandbox${index}`);
  const value = `Object.freeze({ ${fields.join(', ')} })`;
  return `${imports.join('\n')}\n${exportName === 'default' ? `export default ${value};` : `export const ${exportName} = ${value};`}\n`;
}
