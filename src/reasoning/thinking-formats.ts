/** The four thinking formats of `reason.cot` (docs/spec.md#62-reasoncot), each a numbered instruction. */

export const THINKING_FORMATS = new Map<string, string>([
  [
    'step_by_step',
    'Think step by step:\n1. Identify the key components of the problem.\n2. Work through each component in order.\n3. Show your reasoning at every step.\n4. State the final answer.',
  ],
  [
    'pros_cons',
    'Weigh the pros and cons:\n1. List the positive aspects (pros).\n2. List the negative aspects (cons).\n3. Weigh them against each other.\n4. Reach a balanced conclusion.',
  ],
  [
    'tree',
    'Use tree-structured reasoning:\n1. Identify the main branches of the problem.\n2. Explore each branch and its sub-branches.\n3. Combine what the branches show.\n4. Synthesise a final answer.',
  ],
  [
    'first_principles',
    'Reason from first principles:\n1. Identify the fundamental truths involved.\n2. Build up from them step by step.\n3. Question every assumption.\n4. Derive the answer from the fundamentals.',
  ],
]);

export const DEFAULT_THINKING_FORMAT = 'step_by_step';

/** The instruction text of a format, or undefined for an unknown name. */
export function thinkingFormatInstructions(name: string): string | undefined {
  return THINKING_FORMATS.get(name);
}
