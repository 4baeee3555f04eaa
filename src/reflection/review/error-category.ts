/**
 * categorizeError: seed 002's error categories, detected from the error text (and code), in the
 * seed's order, with its default suggestion and replan rule: replanning helps for `timeout`,
 * `not_found`, `network`, `resource`, not for `permission`, `validation`, `execution`.
 * Extension: "timed out" counts as timeout and an exhausted run budget as resource.
 */
export type ErrorCategory =
  | 'timeout'
  | 'permission'
  | 'not_found'
  | 'network'
  | 'validation'
  | 'resource'
  | 'execution';

interface CategoryRule {
  category: ErrorCategory;
  keywords: string[];
  suggestion: string;
  replan: boolean;
}

const RULES: CategoryRule[] = [
  {
    category: 'timeout',
    keywords: ['timeout', 'timed out'],
    suggestion: 'Increase timeout or break into smaller tasks',
    replan: true,
  },
  {
    category: 'permission',
    keywords: ['permission', 'access denied', 'forbidden', 'unauthorized'],
    suggestion: 'Check required permissions in config',
    replan: false,
  },
  {
    category: 'not_found',
    keywords: ['not found', 'no such file'],
    suggestion: 'Verify paths exist before accessing',
    replan: true,
  },
  { category: 'network', keywords: ['connection', 'network'], suggestion: 'Check network connectivity', replan: true },
  {
    category: 'validation',
    keywords: ['validation', 'invalid'],
    suggestion: 'Fix tool parameter values',
    replan: false,
  },
  {
    category: 'resource',
    keywords: ['memory', 'disk', 'resource', 'budget exceeded'],
    suggestion: 'Reduce task scope or free resources',
    replan: true,
  },
];

const EXECUTION: CategoryRule = {
  category: 'execution',
  keywords: [],
  suggestion: 'Check tool implementation',
  replan: false,
};

export interface CategorizedError {
  category: ErrorCategory;
  suggestion: string;
  should_replan: boolean;
}

export function categorizeError(message: string, code?: string): CategorizedError {
  const haystack = `${message} ${(code ?? '').replace(/_/g, ' ')}`.toLowerCase();
  const rule = RULES.find((candidate) => candidate.keywords.some((keyword) => haystack.includes(keyword))) ?? EXECUTION;
  return { category: rule.category, suggestion: rule.suggestion, should_replan: rule.replan };
}
