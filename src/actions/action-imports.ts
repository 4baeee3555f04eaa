/**
 * Which package import brings each built-in action (src/action-sets/, one package entry each), so
 * a registry that lacks one can say what to import instead of only "unknown action". Names only:
 * this module imports no action. tests/actions/action-sets.test.ts keeps it equal to the sets.
 */

export interface ActionImport {
  /** The package entry: `tea-edge/actions/llm`. */
  module: string;
  /** The function of that entry that returns the set: `llmActions`. */
  name: string;
}

const SETS: ReadonlyArray<ActionImport & { actions: readonly string[] }> = [
  {
    module: 'tea-edge/actions/core',
    name: 'coreActions',
    actions: [
      'validate.schema',
      'json.parse',
      'tools.list',
      'state.set',
      'return',
      'core.return',
      'retry.loop',
      'agent.dispatch',
      'agent.parallel',
      'agent.sequential',
      'file.read',
      'file.write',
    ],
  },
  {
    module: 'tea-edge/actions/llm',
    name: 'llmActions',
    actions: ['llm.call', 'llm.stream', 'llm.tools', 'llm.chat', 'llm.embed'],
  },
  {
    module: 'tea-edge/actions/tools',
    name: 'toolActions',
    actions: [
      'memory.store',
      'memory.retrieve',
      'math.calculate',
      'json.query',
      'http.get',
      'web.scrape',
      'web.search',
    ],
  },
  {
    module: 'tea-edge/reasoning',
    name: 'reasoningActions',
    actions: [
      'reason.cot',
      'reason.react',
      'reason.self_correct',
      'reason.decompose',
      'reason.dspy.cot',
      'reason.dspy.react',
    ],
  },
  {
    module: 'tea-edge/reflection',
    name: 'reflectionActions',
    actions: ['reflection.loop', 'reflection.evaluate', 'reflection.correct', 'reflection.review'],
  },
  { module: 'tea-edge/prolog', name: 'prologActions', actions: ['prolog.query'] },
];

const BY_ACTION = new Map<string, ActionImport>(
  SETS.flatMap(({ module, name, actions }) => actions.map((action) => [action, { module, name }] as const)),
);

/** The import that brings the built-in action `name`, or undefined for a name no set holds. */
export function actionImportOf(name: string): ActionImport | undefined {
  return BY_ACTION.get(name);
}

/** Every set: its entry, its function and its action names (for tests and docs). */
export function actionSetImports(): ReadonlyArray<ActionImport & { actions: readonly string[] }> {
  return SETS;
}
