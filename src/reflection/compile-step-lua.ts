/**
 * compileStepLua: compiles the Lua of a reflection generator, corrector or evaluator at load.
 * Code that fails to compile and is plainly Python (TEA's default language for custom
 * evaluators) is refused with UNSUPPORTED_LANGUAGE telling the author to write Lua, as for nodes.
 */
import type { ActionCompiler } from '../core/action.js';
import { AgentError } from '../core/agent-error.js';
import { looksLikePython } from '../util/python-detector.js';
import type { CompiledScript } from '../core/script-sandbox.js';

/** Python idioms common in TEA's custom evaluators, beyond the engine's own detector. */
const EVALUATOR_PYTHON_SIGNS = [/\blen\s*\(/, /\.get\(\s*["']/, /^\s*result\s*=\s*[{[]\s*["']/m];

/** `allowPython`: the step's result may be a promise (generators and correctors; evaluators are synchronous). */
export function compileStepLua(
  code: unknown,
  field: string,
  compiler: ActionCompiler,
  allowPython = false,
): CompiledScript {
  try {
    return compiler.lua(code as string, field);
  } catch (error) {
    if (
      AgentError.isInstance(error) &&
      error.code === 'LUA_SYNTAX' &&
      typeof code === 'string' &&
      (looksLikePython(code) || EVALUATOR_PYTHON_SIGNS.some((sign) => sign.test(code)))
    ) {
      // A generator or corrector runs as TEA's Python where the host has a Python sandbox.
      if (allowPython) {
        try {
          return compiler.script('python', code, field);
        } catch (pythonError) {
          if (!AgentError.isInstance(pythonError) || pythonError.code !== 'SCRIPT_ENGINE_NOT_LOADED') throw pythonError;
        }
      }
      throw compiler.error(
        `\`${field}\` looks like Python; tea-edge runs inline code in Lua (rewrite it in Lua)`,
        field,
        'UNSUPPORTED_LANGUAGE',
      );
    }
    throw error;
  }
}
