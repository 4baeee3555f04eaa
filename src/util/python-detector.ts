/** Recognises inline code that is plainly Python, so the author is told to write Lua. */
const PYTHON_SIGNS = [
  /^\s*def\s+\w+\s*\(.*\)\s*:\s*$/m,
  /^\s*(?:import\s+\w+|from\s+[\w.]+\s+import\s+)/m,
  /^\s*(?:if|elif|for|while|with|try|except|else)\b[^\n]*:\s*$/m,
  /\b(?:True|False|None)\b/,
  /^\s*return\s*\{\s*["'][^"']+["']\s*:/m,
  /\bstate\s*\[\s*["'][^"']+["']\s*\]\s*=/,
  /\bstate\.get\(/,
];

export function looksLikePython(code: string): boolean {
  return PYTHON_SIGNS.some((sign) => sign.test(code));
}
