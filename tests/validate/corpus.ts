/**
 * The misspelled-agent corpus: one file per mistake class (tests/validate/agents/), each with the
 * problem `validate` must report for it. Read by the Node and the CLI tests.
 */
import path from 'node:path';

export const AGENTS_DIR = path.join(import.meta.dirname, 'agents');

export interface ExpectedProblem {
  code: string;
  line: number;
  column: number;
  /** Text the message must contain (the suggestion, or the thing named). */
  says: string;
  node?: string;
  field?: string;
}

export interface MistakeCase {
  file: string;
  what: string;
  problems: ExpectedProblem[];
}

export const MISTAKES: MistakeCase[] = [
  {
    file: 'node-key-whith.yaml',
    what: 'a misspelled node key',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 5,
        column: 5,
        says: "unknown key `whith` in node 'ask'; did you mean `with`?",
        node: 'ask',
        field: 'whith',
      },
    ],
  },
  {
    file: 'param-promt.yaml',
    what: 'a misspelled llm.call parameter',
    problems: [
      {
        code: 'INVALID_PARAMS',
        line: 6,
        column: 7,
        says: 'unknown key `promt` in the parameters of llm.call; did you mean `prompt`?',
        node: 'ask',
        field: 'promt',
      },
    ],
  },
  {
    file: 'node-key-outptu.yaml',
    what: 'a misspelled output key',
    problems: [
      { code: 'INVALID_AGENT', line: 7, column: 5, says: 'did you mean `output`?', node: 'ask', field: 'outptu' },
    ],
  },
  {
    file: 'param-max-iteration.yaml',
    what: 'a misspelled reflection.loop parameter',
    problems: [
      {
        code: 'INVALID_PARAMS',
        line: 11,
        column: 7,
        says: 'did you mean `max_iterations`?',
        node: 'refine',
        field: 'max_iteration',
      },
    ],
  },
  {
    file: 'limits-max-step.yaml',
    what: 'a misspelled limit',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 4,
        column: 5,
        says: 'unknown key `max_step` in `settings.limits`; did you mean `max_steps`?',
        field: 'settings.limits.max_step',
      },
    ],
  },
  {
    file: 'settings-llm-temprature.yaml',
    what: 'a misspelled settings.llm key',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 5,
        column: 5,
        says: 'did you mean `temperature`?',
        field: 'settings.llm.temprature',
      },
    ],
  },
  {
    file: 'provider-olama.yaml',
    what: 'an unknown literal provider',
    problems: [
      {
        code: 'UNKNOWN_PROVIDER',
        line: 4,
        column: 15,
        says: 'unknown provider `olama`; did you mean `ollama`?',
        field: 'settings.llm.provider',
      },
    ],
  },
  {
    file: 'node-type-unknown.yaml',
    what: 'a node type tea-edge does not implement',
    problems: [
      {
        code: 'UNSUPPORTED_NODE_TYPE',
        line: 4,
        column: 11,
        says: 'node type `for_each` is not supported',
        node: 'repeat',
        field: 'type',
      },
    ],
  },
  {
    file: 'generator-promt.yaml',
    what: 'a misspelled parameter inside a generator',
    problems: [
      {
        code: 'INVALID_PARAMS',
        line: 8,
        column: 9,
        says: 'unknown key `promt` in `generator` of reflection.loop (llm.call); did you mean `prompt`?',
        node: 'refine',
        field: 'generator.promt',
      },
    ],
  },
  {
    file: 'judge-key.yaml',
    what: 'a misspelled key of an LLM judge',
    problems: [
      {
        code: 'INVALID_PARAMS',
        line: 12,
        column: 9,
        says: 'did you mean `temperature`?',
        node: 'refine',
        field: 'evaluator.temprature',
      },
    ],
  },
  {
    file: 'tool-entry-key.yaml',
    what: 'a misspelled key of a tool entry',
    problems: [
      {
        code: 'INVALID_PARAMS',
        line: 9,
        column: 11,
        says: 'did you mean `description`?',
        node: 'tools',
        field: 'tools[0].descripton',
      },
    ],
  },
  {
    file: 'non-finite-limit.yaml',
    what: 'a non-finite budget',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 4,
        column: 16,
        says: '`settings.limits.max_steps` is .inf',
        field: 'settings.limits.max_steps',
      },
    ],
  },
  {
    file: 'limit-ceiling.yaml',
    what: 'a budget above its host ceiling',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 4,
        column: 20,
        says: 'settings.limits.max_llm_calls: 50000 is above the ceiling 10000',
      },
    ],
  },
  {
    file: 'tea-unsupported-key.yaml',
    what: 'a TEA key that changes behaviour and tea-edge does not implement',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 7,
        column: 5,
        says: 'a node `retry:` block is not supported by tea-edge; write `on_error: {mode: retry',
        node: 'ask',
      },
    ],
  },
  {
    file: 'top-level-setings.yaml',
    what: 'a misspelled top-level key',
    problems: [
      {
        code: 'INVALID_AGENT',
        line: 2,
        column: 1,
        says: 'unknown key `setings` in the agent file (top level); did you mean `settings`?',
        field: 'setings',
      },
    ],
  },
  {
    file: 'five-mistakes.yaml',
    what: 'five mistakes, all reported in one pass in file order',
    problems: [
      { code: 'UNKNOWN_PROVIDER', line: 4, column: 15, says: 'did you mean `ollama`?' },
      { code: 'INVALID_PARAMS', line: 9, column: 7, says: 'did you mean `prompt`?', node: 'draft', field: 'promt' },
      { code: 'INVALID_AGENT', line: 10, column: 5, says: 'did you mean `output`?', node: 'draft' },
      {
        code: 'INVALID_AGENT',
        line: 12,
        column: 11,
        says: 'a `type: while_loop` node needs `max_iterations`',
        node: 'repeat',
        field: 'type',
      },
      {
        code: 'INVALID_PARAMS',
        line: 23,
        column: 7,
        says: 'did you mean `max_iterations`?',
        node: 'polish',
        field: 'max_iteration',
      },
    ],
  },
];
