/** The refusal of inline code in a language tea-edge does not run (TEA's Python and Prolog blocks). */

/** Why tea-edge does not run a block in `language`: one sentence, with what to do instead. */
export function foreignLanguageMessage(language: string, what: string): string {
  switch (language.toLowerCase()) {
    case 'python':
      return `${what} is Python; tea-edge has no Python interpreter (it runs in browsers and edge workers, where there is none): rewrite it in Lua (docs/porting-from-tea.md has the idioms)`;
    case 'prolog':
      return `${what} is Prolog; this engine has no Prolog sandbox (withPrologWhenUsed loads it)`;
    default:
      return `${what} is in language '${language}'; tea-edge runs inline code in Lua only (write it in Lua)`;
  }
}
