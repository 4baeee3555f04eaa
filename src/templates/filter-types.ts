/**
 * The shape every filter has. Kept apart from the filter tables (template-filters.ts,
 * text-filters.ts, collection-filters.ts) so those can share it without importing each other.
 */
import type { RuntimeValue } from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';

/** What a filter gets besides its operand and arguments. */
export interface FilterContext {
  readonly budget: RenderBudget;
  /** Applies another filter by name (for `map('upper')`). */
  applyFilter(name: string, operand: RuntimeValue, args: RuntimeValue[]): RuntimeValue;
}

export type TemplateFilter = (
  operand: RuntimeValue,
  args: RuntimeValue[],
  keywords: ReadonlyMap<string, RuntimeValue>,
  context: FilterContext,
) => RuntimeValue;
