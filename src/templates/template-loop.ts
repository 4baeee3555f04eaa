/**
 * `{% for %}` for the template interpreter, with Jinja's semantics as the library implements them
 * (tuple unpacking, `for x in xs if test`, `loop.*`, `{% break %}`/`{% continue %}`, `{% else %}`).
 * It is run here rather than by the library so that each iteration is counted before its body
 * runs, and because the library builds ten runtime values per iteration for `loop` whether or not
 * the body reads it; here `loop` is built lazily.
 */
import type { Environment } from '@huggingface/jinja';
import { AgentError } from '../core/agent-error.js';
import {
  type RuntimeValue,
  type TemplateNode,
  LazyRecordMap,
  createEnvironment,
  isArray,
  isMapping,
  makeObject,
  makeString,
  makeUndefined,
} from './jinja-runtime.js';
import type { RenderBudget } from './render-budget.js';

/** The parts of a `For` node this file reads. */
export interface LoopNode {
  loopvar: TemplateNode & { value?: unknown };
  iterable: TemplateNode & { lhs?: TemplateNode; test?: TemplateNode };
  body: TemplateNode[];
  defaultBlock: TemplateNode[];
}

/** What the loop needs from its interpreter. */
export interface LoopHost {
  readonly budget: RenderBudget;
  evaluate(node: TemplateNode, environment: Environment): RuntimeValue;
  evaluateBlock(nodes: TemplateNode[], environment: Environment): RuntimeValue;
}

/** Thrown by `{% break %}` / `{% continue %}` and caught by the nearest loop (signals, not errors). */
export const BREAK_SIGNAL = Object.freeze({ loopSignal: 'break' });
export const CONTINUE_SIGNAL = Object.freeze({ loopSignal: 'continue' });

/** Runs a `For` node and returns its output. */
export function runLoop(host: LoopHost, node: LoopNode, environment: Environment): RuntimeValue {
  const scope = createEnvironment(environment);
  const select = node.iterable.type === 'SelectExpression' ? node.iterable : undefined;
  const source = host.evaluate(select !== undefined ? select.lhs! : node.iterable, scope);
  let candidates: RuntimeValue[];
  if (isArray(source)) candidates = source.value;
  else if (isMapping(source) && source.type !== 'NamespaceValue')
    candidates = Array.from((source.value as Map<string, RuntimeValue>).keys(), (key) => makeString(key));
  else throw new AgentError('TEMPLATE_ERROR', `cannot loop over a ${source.type}`);
  const items: RuntimeValue[] = [];
  for (const item of candidates) {
    if (select !== undefined) {
      const probe = createEnvironment(scope);
      bind(node.loopvar, item, probe);
      if (!host.evaluate(select.test!, probe).__bool__().value) continue;
    }
    items.push(item);
  }
  let output = '';
  let iterated = false;
  for (let index = 0; index < items.length; index++) {
    host.budget.iteration();
    scope.variables.set('loop', makeObject(loopInfo(items, index)));
    bind(node.loopvar, items[index]!, scope);
    try {
      output += blockText(host.evaluateBlock(node.body, scope));
    } catch (error) {
      if (error === CONTINUE_SIGNAL) continue;
      if (error === BREAK_SIGNAL) break;
      throw error;
    }
    iterated = true;
  }
  if (!iterated) output += blockText(host.evaluateBlock(node.defaultBlock, scope));
  return makeString(output);
}

/** A block's output: always text (its printed parts were printed, and counted, as they ran). */
function blockText(value: RuntimeValue): string {
  return value.type === 'StringValue' ? (value.value as string) : '';
}

/** Sets the loop variable(s) for one item: `x`, or `a, b` unpacking a pair. */
function bind(target: LoopNode['loopvar'], item: RuntimeValue, environment: Environment): void {
  if (target.type === 'Identifier') {
    environment.variables.set(target.value as string, item);
    return;
  }
  if (target.type !== 'TupleLiteral') throw new AgentError('TEMPLATE_ERROR', `invalid loop variable: ${target.type}`);
  const names = target.value as (TemplateNode & { value?: unknown })[];
  if (!isArray(item))
    throw new AgentError('TEMPLATE_ERROR', `cannot unpack a ${item.type} into ${names.length} loop variables`);
  const parts = item.value as RuntimeValue[];
  if (parts.length !== names.length) {
    throw new AgentError(
      'TEMPLATE_ERROR',
      `too ${names.length > parts.length ? 'few' : 'many'} items to unpack (${parts.length} for ${names.length})`,
    );
  }
  names.forEach((name, index) => {
    if (name.type !== 'Identifier') throw new AgentError('TEMPLATE_ERROR', `cannot unpack into a ${name.type}`);
    environment.variables.set(name.value as string, parts[index]!);
  });
}

/** `loop` for iteration `index`: numbers converted on first read; `previtem`/`nextitem` as they are. */
function loopInfo(items: RuntimeValue[], index: number): Map<string, RuntimeValue> {
  const info = new LazyRecordMap({
    index: index + 1,
    index0: index,
    revindex: items.length - index,
    revindex0: items.length - index - 1,
    first: index === 0,
    last: index === items.length - 1,
    length: items.length,
    previtem: undefined,
    nextitem: undefined,
  });
  info.set('previtem', index > 0 ? items[index - 1]! : makeUndefined());
  info.set('nextitem', index < items.length - 1 ? items[index + 1]! : makeUndefined());
  return info;
}
