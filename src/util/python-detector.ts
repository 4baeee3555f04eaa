/**
 * Recognises inline code written for TEA's other languages, so the author is told which language
 * it is and why tea-edge cannot run it, instead of a Lua syntax error. Used only on code that
 * failed to compile as Lua, so a sign that Lua could also contain costs nothing.
 * Prolog signs follow TEA's own detection (prolog_runtime.py `detect_prolog_code`); rules and
 * queries (`:-`, `?-`) decide first, as a Python block never has them.
 */
const PYTHON_SIGNS = [
  /^\s*def\s+\w+\s*\(.*\)\s*:\s*$/m,
  /^\s*(?:import\s+\w+|from\s+[\w.]+\s+import\s+)/m,
  /^\s*(?:if|elif|for|while|with|try|except|else)\b[^\n]*:\s*$/m,
  /\b(?:True|False|None)\b/,
  /^\s*return\s*\{\s*["'][^"']+["']\s*:/m,
  /\bstate\s*\[\s*["'][^"']+["']\s*\]\s*=/,
  /\bstate\.get\(/,
  // A `# comment` line (Lua has no statement that starts with `#`).
  /^[ \t]*#(?:[ \t!]|$)/m,
];

// `:-` followed by a number is a Python slice (`pred[8:-1]`), never a Prolog rule.
const PROLOG_DECIDING = [/^\s*%\s*prolog/i, /:-(?!\s*\d)/, /\?-(?!\s*\d)/];
const PROLOG_SIGNS = [
  /\bstate\s*\(\s*\w+\s*,/,
  /\breturn\s*\(\s*\w+\s*,/,
  /\bassertz?\s*\(/,
  /\bretract\w*\s*\(/,
  /\bfindall\s*\(/,
  /\bforall\s*\(/,
  /\baggregate_all\s*\(/,
  /#=|#<|#>|#\\=|#=<|#>=/,
  /\blabel\s*\(/,
  /\buse_module\s*\(/,
];

export type ForeignLanguage = 'python' | 'prolog';

export function looksLikePython(code: string): boolean {
  return PYTHON_SIGNS.some((sign) => sign.test(code));
}

/** The TEA language `code` is written in when it is plainly not Lua, else undefined. */
export function foreignLanguageOf(code: string): ForeignLanguage | undefined {
  // Rules decide only outside quotes and Python comments: a Python block may hold Prolog text in
  // a string (often a triple-quoted one it hands to a Prolog action) or `:-` in a comment.
  const unquoted = code
    .replace(/"""[\s\S]*?"""|'''[\s\S]*?'''/g, '""')
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""')
    .replace(/(^|[ \t])#(?=[ \t]|$).*$/gm, '$1');
  if (PROLOG_DECIDING.some((sign) => sign.test(unquoted))) return 'prolog';
  if (looksLikePython(code)) return 'python';
  if (PROLOG_SIGNS.some((sign) => sign.test(code))) return 'prolog';
  return undefined;
}
