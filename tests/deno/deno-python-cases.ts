/** The blocks tests/deno/deno-python.ts runs in Deno, by name (TEA's semantics, then hostile ones). */
export const PYTHON_CASES: Record<string, string> = {
  // TEA examples/yaml_agent_example.yaml, node `process` (shape kept).
  tea_return:
    'items = state.get("items", [])\nprint("got", len(items))\nreturn {"total": sum(items), "hello": variables["greeting"], "doubled": json.loads(json.dumps([i * 2 for i in items])), "year_ok": datetime.date(2024, 1, 2).year == 2024}',
  tea_locals: 'import re\nwords = re.findall(r"\\w+", state["text"])\ncount = len(words)\n_scratch = 1\n',
  leak_set: 'import builtins\nbuiltins.leak = 1\nglobal_leak = 2\n',
  leak_seen: 'return {"seen": "global_leak" in globals()}',
  error_line: 'x = 1\nreturn {"y": x / 0}',
  syntax: 'return {"a": }',
  os_system: 'import os\nreturn {"r": os.system("echo PWNED > /tmp/tea-edge-pwned")}',
  etc_passwd:
    'try:\n    open("/etc/passwd").read()\n    return {"r": "read"}\nexcept OSError as e:\n    return {"r": type(e).__name__}',
  list_root: 'import os\nreturn {"r": "etc" in os.listdir("/")}',
  environment:
    'import os\nreturn {"r": sorted(k for k in os.environ if k not in ("HOME", "USER", "LOGNAME", "PATH", "PWD", "LANG", "_"))}',
  subprocess: 'import subprocess\nsubprocess.run(["ls"])',
  import_js: 'import js\nreturn {"p": str(js.Deno)}',
  pyodide_ffi: 'import pyodide.code\npyodide.code.run_js("Deno.readTextFileSync(\'/etc/passwd\')")',
  socket: 'import socket\ns = socket.socket()\ns.connect(("127.0.0.1", 22))',
  recursion: 'def f(n):\n    return f(n + 1)\nreturn {"r": f(0)}',
  huge_print: 'for i in range(20000):\n    print("x" * 100)\nreturn {}',
  huge_return: 'return {"x": "a" * (1024 * 1024)}',
  memory_bomb: 'blob = bytearray(256 * 1024 * 1024)\nreturn {"n": len(blob)}',
  after_memory: 'return {"after": 1}',
  infinite_loop: 'while True:\n    pass',
  after_loop: 'return {"after": 2}',
  swallowing_loop:
    'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass',
  after_swallow: 'return {"after": 3}',
};
