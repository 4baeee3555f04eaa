/**
 * TEA's wrapper for a Python `run:` block (yaml_nodes.py `run_inline`), as Python text run once
 * per interpreter. `__tea_run(code, payload)` takes the code (its `{{ }}` already rendered by the
 * engine, as TEA renders them) and `{"state", "variables"}` as JSON; it answers JSON
 * `{"ok": true, "result"}` or `{"ok": false, "kind", "message", "line"}`. A block with `return`
 * becomes the body of a function whose result is the update; without, its local variables not
 * starting with `_` are the update (less modules, functions and classes, which JSON cannot hold). Globals as TEA's: `state`, `variables`, `json`, `datetime`
 * (when the text names it), `requests` None, `actions` empty. The import hooks of Pyodide's
 * JavaScript bridge are removed, so `import js` and `pyodide.ffi` find nothing to reach.
 */
export const PYTHON_RUNNER =
  String.raw`
import sys as _sys, json as _json, traceback as _traceback
for _finder in list(_sys.meta_path):
    if type(_finder).__name__ == 'JsFinder':
        _sys.meta_path.remove(_finder)
for _name in list(_sys.modules):
    if _name.split('.')[0] in ('js', 'pyodide_js'):
        del _sys.modules[_name]

def _tea_json_default(value):
    if isinstance(value, (set, frozenset)):
        return list(value)
    if hasattr(value, 'isoformat'):
        return value.isoformat()
    raise TypeError(f"a value of type {type(value).__name__} is not JSON")

def _tea_reflection_step(code, state):
    # TEA's reflection.loop generator/corrector (reflection_actions.py _execute_inline_code): the
    # code runs at the top level; its answer is ` +
  '`result`' +
  `, else an ` +
  '`output`' +
  String.raw` it changed.
    import json, re
    namespace = {'state': state, 'output': state.get('output'), 'reflection_output': state.get('reflection_output'),
                 'reflection_errors': state.get('reflection_errors', []), 'reflection_iteration': state.get('reflection_iteration', 0),
                 'json': json, 're': re}
    exec(compile(code, '<run>', 'exec'), namespace)
    if 'result' in namespace:
        return namespace['result']
    if 'output' in namespace and namespace['output'] != state.get('output'):
        return namespace['output']
    return None

def __tea_run(code, payload):
    import json
    data = json.loads(payload)
    if data.get('wrapper') == 'reflection':
        try:
            return _json.dumps({'ok': True, 'result': _tea_reflection_step(code, data['state'])}, default=_tea_json_default, allow_nan=False)
        except SyntaxError as error:
            return _json.dumps({'ok': False, 'kind': 'syntax', 'message': f"{type(error).__name__}: {error.msg}", 'line': error.lineno})
        except KeyboardInterrupt:
            return _json.dumps({'ok': False, 'kind': 'interrupted', 'message': 'the block ran past its time limit'})
        except MemoryError:
            return _json.dumps({'ok': False, 'kind': 'memory', 'message': 'the block ran out of memory'})
        except BaseException as error:
            return _json.dumps({'ok': False, 'kind': 'error', 'message': f"{type(error).__name__}: {error}"[:4000]})
    scope = {'state': data['state'], 'variables': data['variables'], 'json': json, 'requests': None, 'datetime': None, 'actions': {}}
    if 'datetime' in code:
        import datetime
        scope['datetime'] = datetime
    try:
        if 'return' in code:
            indented = '\n'.join('    ' + line for line in code.split('\n'))
            local = {}
            exec(compile('def __run_func__():\n' + indented + '\n__result__ = __run_func__()', '<run>', 'exec'), scope, local)
            result = local.get('__result__', {})
        else:
            local = {}
            exec(compile(code, '<run>', 'exec'), scope, local)
            # Modules, functions and classes a block defines are not state (TEA would store the objects).
            result = {k: v for k, v in local.items() if not k.startswith('_') and not callable(v) and type(v).__name__ != 'module'}
        return _json.dumps({'ok': True, 'result': result}, default=_tea_json_default, allow_nan=False)
    except SyntaxError as error:
        line = error.lineno - 1 if 'return' in code and error.lineno else error.lineno
        return _json.dumps({'ok': False, 'kind': 'syntax', 'message': f"{type(error).__name__}: {error.msg}", 'line': line})
    except KeyboardInterrupt:
        return _json.dumps({'ok': False, 'kind': 'interrupted', 'message': 'the block ran past its time limit'})
    except MemoryError:
        return _json.dumps({'ok': False, 'kind': 'memory', 'message': 'the block ran out of memory'})
    except RecursionError as error:
        return _json.dumps({'ok': False, 'kind': 'error', 'message': f"RecursionError: {error}"})
    except BaseException as error:
        frames = [frame for frame in _traceback.extract_tb(error.__traceback__) if frame.filename == '<run>']
        line = frames[-1].lineno if frames else None
        if line is not None and 'return' in code:
            line -= 1
        text = f"{type(error).__name__}: {error}"
        return _json.dumps({'ok': False, 'kind': 'error', 'message': text[:4000], 'line': line})
`;

/**
 * Modules TEA's example blocks import most, imported once before the start-up snapshot is made so
 * a restored interpreter has them loaded (a block still imports them itself; this only makes that
 * free). Standard library only: nothing here reaches outside the sandbox.
 */
export const PYTHON_WARM_IMPORTS =
  'import re, datetime, collections, math, random, itertools, functools, hashlib, statistics, string, textwrap, decimal, uuid, time, copy';
