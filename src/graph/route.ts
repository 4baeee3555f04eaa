/**
 * Picks the next node (docs/spec.md#14-navigation): goto > legacy edges > list order. Goto rules and edge `when`s
 * are tried in list order; the first truthy one wins; a rule without a condition always matches.
 * No match is NO_ROUTE naming the node and every expression tried with its value.
 */
import { AgentError } from '../core/agent-error.js';
import type { TemplateScope } from '../templates/types.js';
import type { CompiledNode, CompiledRoute } from './compiled-agent.js';

export type ParallelRoute = Extract<CompiledRoute, { kind: 'parallel' }>;

export function nextNode(node: CompiledNode, scope: TemplateScope): string | ParallelRoute {
  const route = node.route;
  switch (route.kind) {
    case 'goto':
    case 'next':
      return route.target;
    case 'parallel':
      return route;
    case 'rules':
    case 'edges': {
      const tried: Array<{ expression: string; value: unknown }> = [];
      const candidates = route.kind === 'rules' ? route.rules : route.edges;
      for (const candidate of candidates) {
        if (candidate.condition === undefined) {
          if (candidate.constant === false) {
            tried.push({ expression: 'false', value: false });
            continue;
          }
          return candidate.to;
        }
        const { value, truthy } = candidate.condition.evaluate(scope);
        // A `condition:` edge maps its result to the target through `when:` (TEA: {when: to}).
        if (truthy === ('expect' in candidate ? (candidate.expect ?? true) : true)) return candidate.to;
        tried.push({ expression: candidate.condition.source, value });
      }
      const list = tried
        .map((entry) => `${entry.expression} → ${JSON.stringify(entry.value) ?? 'undefined'}`)
        .join('; ');
      throw new AgentError('NO_ROUTE', `no ${route.kind === 'rules' ? 'goto rule' : 'edge'} matched; tried: ${list}`, {
        node: node.name,
        details: { tried },
      });
    }
  }
}
