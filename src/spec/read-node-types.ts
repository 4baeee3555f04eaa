/**
 * Reads TEA's typed nodes (`type: while_loop`, `type: dynamic_parallel`) and the mapping form of
 * `run:` (`{type: expression, value, output_key}` / `{type: lua, code}`). The JSON Schema holds the
 * keys and their types; this file holds what it cannot say: which keys belong to which node type,
 * exactly one branch body, no nested loops. Each problem names the key and sits at its position.
 * TEA source: docs/shared/yaml-reference/nodes.md (Methods 4, 6, 7) and Python's yaml_nodes.py.
 */
import type { DynamicParallelBody, NodeBody, StepSpec, WhileLoopBody } from './agent-spec.js';
import type { Path } from './closed-shape.js';
import { NODE_TYPES, unsupportedNodeType } from './tea-keys.js';
import { foreignLanguageMessage } from './foreign-language.js';

/** Throws the problem of one node's body, at a path. */
export type Fail = (
  code: 'INVALID_AGENT' | 'UNSUPPORTED_NODE_TYPE' | 'UNSUPPORTED_LANGUAGE',
  message: string,
  path: Path,
) => never;
/** Reads one plain body (uses/run/steps) at a path. */
export type ReadPlain = (raw: Record<string, any>, path: Path) => NodeBody;
/** Records a problem and lets reading go on (so one node reports every blocker it has). */
export type Note = (error: unknown) => void;
/** Records a warning at a path: the file loads (`validate --strict` makes it an error). */
export type Warn = (message: string, path: Path) => void;

const WHILE_KEYS = ['condition', 'max_iterations', 'body'] as const;
const PARALLEL_KEYS = ['items', 'item_var', 'index_var', 'subgraph', 'input', 'max_concurrency', 'fail_fast'] as const;
/** Keys of a plain body, which a typed node has instead of its own. */
const PLAIN_BODY_KEYS = ['uses', 'run', 'script', 'with', 'output_key', 'language'] as const;

/** A node's body when it has `type:`, or keys only a typed node has; undefined for a plain node. */
export function readTypedBody(
  raw: Record<string, any>,
  path: Path,
  fail: Fail,
  readPlain: ReadPlain,
  note: Note = rethrow,
  warn: Warn = () => {},
): NodeBody | undefined {
  const type = raw.type;
  if (type === undefined) {
    if (raw.condition !== undefined) {
      // TEA's examples write it to skip a node, but only while_loop reads it (yaml_nodes.py):
      // TEA runs the node anyway, and so does tea-edge, saying so.
      warn(
        '`condition:` on a node without `type: while_loop` is ignored (TEA ignores it too: the node always runs); to run a node only when something holds, route to it with goto rules (`goto: [{if: <expr>, to: <node>}, {to: <other>}]`) or an edge `condition:`',
        path.concat('condition'),
      );
    }
    for (const key of [...WHILE_KEYS.filter((key) => key !== 'condition'), ...PARALLEL_KEYS]) {
      if (raw[key] !== undefined)
        fail(
          'INVALID_AGENT',
          `\`${key}\` belongs to a node with \`type: ${(WHILE_KEYS as readonly string[]).includes(key) ? 'while_loop' : 'dynamic_parallel'}\``,
          path.concat(key),
        );
    }
    if (typeof raw.fan_in === 'string')
      fail(
        'INVALID_AGENT',
        '`fan_in: <node>` belongs to a node with `type: dynamic_parallel` (a fan-in node writes `fan_in: true`)',
        path.concat('fan_in'),
      );
    if (raw.action !== undefined && typeof raw.action !== 'string')
      fail(
        'INVALID_AGENT',
        '`action:` as a mapping belongs to a node with `type: dynamic_parallel` (else write `uses: <action>`)',
        path.concat('action'),
      );
    return undefined;
  }
  if (!NODE_TYPES.includes(type)) {
    const rule = unsupportedNodeType(type);
    fail('UNSUPPORTED_NODE_TYPE', rule.message, path.concat('type'));
  }
  const own = type === 'while_loop' ? WHILE_KEYS : PARALLEL_KEYS;
  const foreign = type === 'while_loop' ? [...PARALLEL_KEYS, 'steps', 'action', 'output'] : WHILE_KEYS;
  for (const key of [...foreign, ...PLAIN_BODY_KEYS]) {
    if (raw[key] !== undefined)
      fail(
        'INVALID_AGENT',
        `\`${key}\` is not a key of a \`type: ${type}\` node (its keys: ${own.join(', ')}${type === 'dynamic_parallel' ? ', action or steps, fan_in, output' : ''})`,
        path.concat(key),
      );
  }
  return type === 'while_loop'
    ? readWhileLoop(raw, path, fail, readPlain, note)
    : readDynamicParallel(raw, path, fail, readPlain, note);
}

const rethrow: Note = (error) => {
  throw error;
};

/** Reads the items of a body list; an item that cannot be read is noted and runs as a pass-through. */
function readSteps(
  items: Array<Record<string, any>>,
  path: Path,
  fail: Fail,
  readPlain: ReadPlain,
  note: Note,
  what: string,
): StepSpec[] {
  return items.map((item, index) => {
    const itemPath = path.concat(index);
    try {
      return readStep(item, itemPath, index, fail, readPlain, what);
    } catch (error) {
      note(error);
      return {
        name: typeof item?.name === 'string' ? item.name : `step ${index + 1}`,
        body: { kind: 'pass' },
        path: itemPath,
      };
    }
  });
}

function readWhileLoop(
  raw: Record<string, any>,
  path: Path,
  fail: Fail,
  readPlain: ReadPlain,
  note: Note,
): WhileLoopBody {
  for (const key of WHILE_KEYS) {
    if (raw[key] === undefined)
      fail(
        'INVALID_AGENT',
        `a \`type: while_loop\` node needs \`${key}\`${key === 'max_iterations' ? ' (an integer 1–1000; TEA requires it too)' : ''}`,
        path.concat('type'),
      );
  }
  if (typeof raw.fan_in === 'string')
    fail('INVALID_AGENT', '`fan_in: <node>` belongs to a `type: dynamic_parallel` node', path.concat('fan_in'));
  if (typeof raw.condition === 'string' && raw.condition.trim() === '')
    fail('INVALID_AGENT', '`condition` must not be empty', path.concat('condition'));
  const body = readSteps(raw.body, path.concat('body'), fail, readPlain, note, 'while_loop body');
  return { kind: 'while_loop', condition: raw.condition, maxIterations: raw.max_iterations, body };
}

function readDynamicParallel(
  raw: Record<string, any>,
  path: Path,
  fail: Fail,
  readPlain: ReadPlain,
  note: Note,
): DynamicParallelBody {
  if (raw.items === undefined)
    fail(
      'INVALID_AGENT',
      'a `type: dynamic_parallel` node needs `items` (e.g. `items: "{{ state.urls }}"`)',
      path.concat('type'),
    );
  if (raw.subgraph !== undefined || raw.input !== undefined) {
    const at = raw.subgraph !== undefined ? 'subgraph' : 'input';
    fail(
      'INVALID_AGENT',
      `\`${at}:\` (dynamic_parallel subgraph mode) is not supported by tea-edge: a run loads one agent file, so a branch cannot load another; write the branch as \`steps:\` (or \`action:\`) in this file`,
      path.concat(at),
    );
  }
  const modes = (['action', 'steps'] as const).filter((key) => raw[key] !== undefined);
  if (modes.length !== 1) {
    fail(
      'INVALID_AGENT',
      modes.length === 0
        ? 'a `type: dynamic_parallel` node needs exactly one of `action:` or `steps:` (what each branch runs)'
        : 'a `type: dynamic_parallel` node has exactly one of `action:` or `steps:`, not both',
      path.concat('type'),
    );
  }
  if (typeof raw.fan_in !== 'string')
    fail(
      'INVALID_AGENT',
      'a `type: dynamic_parallel` node needs `fan_in: <node>`, the node that collects the results (as in TEA)',
      path.concat(raw.fan_in === undefined ? ['type'] : ['fan_in']),
    );
  if (raw.output !== undefined && typeof raw.output !== 'string')
    fail('INVALID_AGENT', "a dynamic_parallel node's `output` is the state key of the results", path.concat('output'));
  const field = modes[0]!;
  let branch: NodeBody;
  if (field === 'action') {
    if (typeof raw.action !== 'object' || raw.action === null)
      fail(
        'INVALID_AGENT',
        '`action:` of a dynamic_parallel node is a mapping `{uses, with, output}`',
        path.concat('action'),
      );
    branch = readStep(raw.action, path.concat('action'), 0, fail, readPlain, 'dynamic_parallel action').body;
    if (branch.kind !== 'action')
      fail(
        'INVALID_AGENT',
        '`action:` of a dynamic_parallel node needs `uses: <action>` (write Lua branches as `steps:`)',
        path.concat('action'),
      );
  } else {
    const steps = readSteps(raw.steps, path.concat('steps'), fail, readPlain, note, 'dynamic_parallel step');
    branch = { kind: 'steps', steps };
  }
  const body: DynamicParallelBody = {
    kind: 'dynamic_parallel',
    items: raw.items,
    itemVar: raw.item_var ?? 'item',
    indexVar: raw.index_var ?? 'index',
    branch,
    branchField: field,
    fanIn: raw.fan_in,
    failFast: raw.fail_fast === true,
  };
  if (body.itemVar === body.indexVar)
    fail(
      'INVALID_AGENT',
      '`item_var` and `index_var` must differ',
      path.concat(raw.index_var !== undefined ? 'index_var' : 'item_var'),
    );
  if (raw.max_concurrency !== undefined) body.maxConcurrency = raw.max_concurrency;
  if (raw.output !== undefined) body.output = raw.output;
  return body;
}

function readStep(raw: unknown, path: Path, index: number, fail: Fail, readPlain: ReadPlain, what: string): StepSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return fail('INVALID_AGENT', `each ${what} item must be a mapping`, path);
  const item = raw as Record<string, any>;
  const body = readPlain(item, path);
  if (body.kind === 'steps' || body.kind === 'while_loop' || body.kind === 'dynamic_parallel')
    fail(
      'INVALID_AGENT',
      `a ${what} cannot nest \`${body.kind === 'steps' ? 'steps' : body.kind}\` (TEA refuses nested loops too)`,
      path,
    );
  return { name: typeof item.name === 'string' ? item.name : `step ${index + 1}`, body, path };
}

/** `run:` as a mapping: `{type: expression, value, output_key}` or `{type: lua, code}`; other types are refused. */
export function readRunMapping(
  run: Record<string, any>,
  path: Path,
  fail: Fail,
  contentLine: (path: Path) => number | undefined,
): NodeBody {
  const at = path.concat('run');
  switch (run.type) {
    case 'expression':
      if (run.value === undefined)
        fail('INVALID_AGENT', '`run: {type: expression}` needs `value:` (the expression)', at);
      if (run.code !== undefined)
        fail('INVALID_AGENT', '`code` is not a key of `run: {type: expression}` (write `value`)', at.concat('code'));
      return { kind: 'expression', value: run.value, outputKey: run.output_key ?? 'result' };
    case 'lua':
    case 'prolog':
      if (typeof run.code !== 'string')
        fail('INVALID_AGENT', `\`run: {type: ${run.type}}\` needs \`code:\` (the code as a string)`, at);
      if (run.value !== undefined || run.output_key !== undefined)
        fail('INVALID_AGENT', `\`run: {type: ${run.type}}\` has only \`code:\``, at);
      return { kind: run.type, code: run.code, lineOffset: (contentLine(at.concat('code')) ?? 1) - 1 };
    default:
      if (run.type === 'python')
        return fail(
          'UNSUPPORTED_LANGUAGE',
          foreignLanguageMessage(run.type, `this \`run: {type: ${run.type}}\``),
          at.concat('type'),
        );
      return fail(
        'UNSUPPORTED_LANGUAGE',
        `\`run: {type: ${String(run.type)}}\` is not supported: tea-edge runs inline code in Lua (\`type: lua\`) or a template expression (\`type: expression\`)`,
        at.concat('type'),
      );
  }
}
