/** The refusal of inline code in a language tea-edge does not run (TEA's Python and Prolog blocks). */

/** Why tea-edge does not run a block in `language`: one sentence, with what to do instead. */
export function foreignLanguageMessage(language: string, what: string): string {
  switch (language.toLowerCase()) {
    case 'python':
      return `${what} is Python; this host has no Python sandbox (the Node CLI runs Python when the optional package \`pyodide\` is installed: npm install pyodide; a Deno host gives one with createDenoPythonSandbox; the browser studio does not run Python; on Cloudflare Workers use Cloudflare's Python Workers), or rewrite it in Lua (docs/porting-from-tea.md has the idioms)`;
    case 'prolog':
      return `${what} is Prolog; this engine has no Prolog sandbox (withPrologWhenUsed loads it)`;
    default:
      return `${what} is in language '${language}'; tea-edge runs inline code in Lua only (write it in Lua)`;
  }
}
