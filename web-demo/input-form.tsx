/**
 * The run input as a form generated from an agent's `input_schema`: a text field per string, a
 * number field per number or integer, a checkbox per boolean, a list per enum, and a JSON box per
 * array, object or anything else. Each change assembles the input object and checks it against
 * the schema with the engine's own validator (the one the server applies), so a problem is shown
 * at its field before the run is sent; a field left empty is left out of the input.
 */
import { useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { compileSchema } from '../src/schema/compile-schema.js';
import type { CompiledSchema } from '../src/core/json-schema.js';
import { isPlainObject } from '../src/util/plain-object.js';

type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  /** The choices of an enum. */
  options?: ReadonlyArray<string | number | boolean | null>;
  /** The field's text when the form opens (the schema's `default`, or empty). */
  initial: string;
}

/** The fields of an object schema with `properties`; undefined for any other schema. */
export function formFields(schema: unknown): FormField[] | undefined {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const spec = isPlainObject(property) ? property : {};
    const kind = kindOf(spec);
    const field: FormField = { name, kind, required: required.has(name), initial: initialText(kind, spec) };
    if (typeof spec.description === 'string') field.description = spec.description;
    if (kind === 'enum') field.options = spec.enum as FormField['options'];
    return field;
  });
}

function kindOf(spec: Record<string, unknown>): FieldKind {
  if (Array.isArray(spec.enum) && spec.enum.length > 0 && spec.enum.every((choice) => choice === null || ['string', 'number', 'boolean'].includes(typeof choice))) return 'enum';
  const type = spec.type;
  return type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : 'json';
}

function initialText(kind: FieldKind, spec: Record<string, unknown>): string {
  const value = spec.default;
  if (kind === 'boolean') return value === true ? 'true' : 'false';
  if (value === undefined) return '';
  if (kind === 'enum') return String((spec.enum as unknown[]).findIndex((choice) => choice === value));
  if (kind === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

export interface FormResult {
  value: Record<string, unknown>;
  /** Problems by field name ('' for the input as a whole). */
  problems: Map<string, string[]>;
}

/** The input the texts make, and its problems: each field's own, then the schema's. */
export function readForm(fields: readonly FormField[], texts: Record<string, string>, schema: CompiledSchema | undefined): FormResult {
  const value: Record<string, unknown> = {};
  const problems = new Map<string, string[]>();
  const add = (name: string, message: string) => problems.set(name, [...(problems.get(name) ?? []), message]);
  for (const field of fields) {
    const text = texts[field.name] ?? '';
    if (field.kind === 'boolean') {
      value[field.name] = text === 'true';
      continue;
    }
    if (text.trim() === '') {
      if (field.required) add(field.name, 'required: fill it in');
      continue;
    }
    if (field.kind === 'string') value[field.name] = text;
    else if (field.kind === 'enum') value[field.name] = field.options![Number(text)];
    else if (field.kind === 'number' || field.kind === 'integer') {
      const number = Number(text);
      if (!Number.isFinite(number)) add(field.name, 'not a number');
      else value[field.name] = number;
    } else {
      try {
        value[field.name] = JSON.parse(text) as unknown;
      } catch (error) {
        add(field.name, `not JSON: ${(error as Error).message}`);
      }
    }
  }
  if (schema !== undefined && problems.size === 0) {
    const check = schema.validate(value);
    if (!check.valid) {
      for (const error of check.errors) {
        const name = fieldOf(error.path, error.message, fields);
        add(name, name === '' ? `${error.path || '/'} ${error.message}` : `${error.path.split('/').slice(2).join('/') ? `${error.path}: ` : ''}${error.message}`);
      }
    }
  }
  return { value, problems };
}

/** The field an error of the whole input belongs to: by its path, else by a field it quotes. */
function fieldOf(path: string, message: string, fields: readonly FormField[]): string {
  const first = path.split('/')[1];
  if (first !== undefined && fields.some((field) => field.name === first)) return first;
  return fields.find((field) => message.includes(`'${field.name}'`) || message.includes(`"${field.name}"`))?.name ?? '';
}

export interface InputFormProps {
  schema: unknown;
  /** Schemas `$ref` may name (the agent's `schemas:`). */
  registry?: Record<string, unknown>;
  /** Told the input (as JSON text) and how many problems it has, on every change. */
  onInput(json: string, problems: number): void;
}

export function InputForm({ schema, registry, onInput }: InputFormProps) {
  const fields = useMemo(() => formFields(schema) ?? [], [schema]);
  const compiled = useMemo(() => {
    try {
      return compileSchema(schema, { where: { field: 'input_schema' }, ...(registry ? { registry: registry as Record<string, never> } : {}) });
    } catch {
      return undefined; // the server checks it; the fields still check their own syntax
    }
  }, [schema, registry]);
  const [texts, setTexts] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((field) => [field.name, field.initial])));
  const result = useMemo(() => readForm(fields, texts, compiled), [fields, texts, compiled]);
  const count = [...result.problems.values()].reduce((total, list) => total + list.length, 0);
  // Before the page paints: the status line never says the input matches while Run would still
  // send the input before it.
  useLayoutEffect(() => onInput(JSON.stringify(result.value, null, 2), count), [result]);
  const set = (name: string, text: string) => setTexts((previous) => ({ ...previous, [name]: text }));
  const general = result.problems.get('') ?? [];
  return (
    <form class="input-form" id="input-form" aria-label="Input" onSubmit={(event) => event.preventDefault()} noValidate>
      {fields.map((field) => {
        const id = `input-field-${field.name}`;
        const problems = result.problems.get(field.name) ?? [];
        const described = [field.description ? `${id}-note` : '', problems.length > 0 ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
        const common = { id, name: field.name, 'aria-invalid': problems.length > 0 ? ('true' as const) : undefined, 'aria-describedby': described };
        const text = texts[field.name] ?? '';
        let control;
        if (field.kind === 'boolean') {
          control = <input type="checkbox" {...common} checked={text === 'true'} onChange={(event) => set(field.name, event.currentTarget.checked ? 'true' : 'false')} />;
        } else if (field.kind === 'enum') {
          control = (
            <select {...common} value={text} onChange={(event) => set(field.name, event.currentTarget.value)}>
              <option value="">{field.required ? 'choose one' : '(not set)'}</option>
              {field.options!.map((choice, index) => <option key={index} value={String(index)}>{JSON.stringify(choice).replace(/^"(.*)"$/, '$1')}</option>)}
            </select>
          );
        } else if (field.kind === 'json') {
          control = <textarea {...common} rows={3} spellcheck={false} value={text} placeholder="JSON" onInput={(event) => set(field.name, event.currentTarget.value)} />;
        } else {
          const numeric = field.kind !== 'string';
          control = <input type="text" inputMode={numeric ? (field.kind === 'integer' ? 'numeric' : 'decimal') : undefined} {...common} value={text} onInput={(event) => set(field.name, event.currentTarget.value)} />;
        }
        return (
          <div class={`field input-field kind-${field.kind}`} key={field.name} data-field={field.name}>
            <label for={id}>
              <code>{field.name}</code>
              {` · ${field.kind === 'json' ? 'JSON' : field.kind}${field.required ? ' · required' : ''}`}
            </label>
            {control}
            {field.description ? <p class="note" id={`${id}-note`}>{field.description}</p> : null}
            {problems.length > 0 ? <p class="bad-text field-error" id={`${id}-error`}>{problems.join('; ')}</p> : null}
          </div>
        );
      })}
      {general.length > 0 ? <p class="bad-text" id="input-form-error">{general.join('; ')}</p> : null}
      <p class="note" id="input-form-status">{count === 0 ? 'The input matches input_schema.' : `${count} problem${count === 1 ? '' : 's'}: fix ${count === 1 ? 'it' : 'them'} to run.`}</p>
    </form>
  );
}
