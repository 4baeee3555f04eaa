/**
 * What a TEA Python block reaches outside its sandbox (issue 26 point 5): `validate` warns when a
 * block reads host files, starts processes, reads the environment or stdin, or imports beyond the
 * standard library, because the sandbox (docs/security.md#python-blocks) has an empty file
 * system, no processes, a stock environment and only the standard library: such a block would
 * run against nothing. Signs are read from the text (comments and strings are not parsed away: a
 * false warning costs a line, a miss only the warning).
 */

/** Top-level modules of Python 3.14's standard library (Pyodide 314's `sys.stdlib_module_names`, private ones left out). */
const STDLIB = new Set([
  '__future__',
  'abc', 'annotationlib', 'antigravity', 'argparse', 'array', 'ast', 'asyncio', 'atexit', 'base64', 'bdb',
  'binascii', 'bisect', 'builtins', 'bz2', 'cProfile', 'calendar', 'cmath', 'cmd', 'code', 'codecs',
  'codeop', 'collections', 'colorsys', 'compileall', 'compression', 'concurrent', 'configparser',
  'contextlib', 'contextvars', 'copy', 'copyreg', 'csv', 'ctypes', 'curses', 'dataclasses', 'datetime',
  'dbm', 'decimal', 'difflib', 'dis', 'doctest', 'email', 'encodings', 'ensurepip', 'enum', 'errno',
  'faulthandler', 'fcntl', 'filecmp', 'fileinput', 'fnmatch', 'fractions', 'ftplib', 'functools', 'gc',
  'genericpath', 'getopt', 'getpass', 'gettext', 'glob', 'graphlib', 'grp', 'gzip', 'hashlib', 'heapq',
  'hmac', 'html', 'http', 'idlelib', 'imaplib', 'importlib', 'inspect', 'io', 'ipaddress', 'itertools',
  'json', 'keyword', 'linecache', 'locale', 'logging', 'lzma', 'mailbox', 'marshal', 'math', 'mimetypes',
  'mmap', 'modulefinder', 'msvcrt', 'multiprocessing', 'netrc', 'nt', 'ntpath', 'nturl2path', 'numbers',
  'opcode', 'operator', 'optparse', 'os', 'pathlib', 'pdb', 'pickle', 'pickletools', 'pkgutil', 'platform',
  'plistlib', 'poplib', 'posix', 'posixpath', 'pprint', 'profile', 'pstats', 'pty', 'pwd', 'py_compile',
  'pyclbr', 'pydoc', 'pydoc_data', 'pyexpat', 'queue', 'quopri', 'random', 're', 'readline', 'reprlib',
  'resource', 'rlcompleter', 'runpy', 'sched', 'secrets', 'select', 'selectors', 'shelve', 'shlex', 'shutil',
  'signal', 'site', 'smtplib', 'socket', 'socketserver', 'sqlite3', 'sre_compile', 'sre_constants',
  'sre_parse', 'ssl', 'stat', 'statistics', 'string', 'stringprep', 'struct', 'subprocess', 'symtable',
  'sys', 'sysconfig', 'syslog', 'tabnanny', 'tarfile', 'tempfile', 'termios', 'textwrap', 'this',
  'threading', 'time', 'timeit', 'tkinter', 'token', 'tokenize', 'tomllib', 'trace', 'traceback',
  'tracemalloc', 'tty', 'turtle', 'turtledemo', 'types', 'typing', 'unicodedata', 'unittest', 'urllib',
  'uuid', 'venv', 'warnings', 'wave', 'weakref', 'webbrowser', 'winreg', 'winsound', 'wsgiref', 'xml',
  'xmlrpc', 'zipapp', 'zipfile', 'zipimport', 'zlib', 'zoneinfo',
]);

const SIGNS: ReadonlyArray<[RegExp, string]> = [
  [/\bopen\s*\(|\bPath\s*\([^)]*\)\s*\.\s*(?:read_|write_|open)|\bos\.(?:listdir|scandir|walk|remove|makedirs)\b/, 'reads or writes host files (the sandbox has an empty in-memory file system)'],
  [/\bsubprocess\b|\bos\.(?:system|popen|exec\w*|spawn\w*|fork)\b/, 'starts processes (the sandbox cannot)'],
  [/\bos\.(?:environ|getenv)\b/, 'reads the environment (the sandbox has a stock one, not the host\'s)'],
  [/\bsys\.stdin\b|\binput\s*\(/, 'reads stdin (there is none)'],
];

/** One message per kind of host access the block's text shows; empty when it shows none. */
export function pythonHostAccess(code: string): string[] {
  const found = SIGNS.filter(([sign]) => sign.test(code)).map(([, what]) => what);
  const foreign = new Set<string>();
  for (const match of code.matchAll(/^[ \t]*(?:import[ \t]+([\w., \t]+)|from[ \t]+([\w.]+)[ \t]+import\b)/gm)) {
    const modules = match[1] !== undefined ? match[1].split(',').map((part) => part.trim().split(/\s+/)[0]!) : [match[2]!];
    for (const module of modules) {
      const top = module.split('.')[0]!;
      if (top !== '' && !STDLIB.has(top)) foreign.add(top);
    }
  }
  if (foreign.size > 0) found.push(`imports ${[...foreign].map((name) => `\`${name}\``).join(', ')}, beyond the standard library (not in the sandbox)`);
  return found;
}
