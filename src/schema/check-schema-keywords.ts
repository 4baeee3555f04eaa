/**
 * checkSchemaKeywords: the load-time shape checks of one subschema: keywords a validator would
 * crash on or misread (`enum: 5`, `required: "x"`, `multipleOf: 0`, `type: strnig`) are refused.
 * Patterns are compiled separately (`prepareKeywords`). Returns a problem description, or
 * undefined when the subschema is acceptable.
 */
const TYPE_NAMES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const NUMBER_KEYWORDS = [
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];
const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

export interface KeywordProblem {
  keyword: string;
  message: string;
}

/** Checks one subschema object. */
export function checkSchemaKeywords(schema: Record<string, unknown>): KeywordProblem | undefined {
  return checkShapes(schema);
}

function checkShapes(schema: Record<string, unknown>): KeywordProblem | undefined {
  const type = schema.type;
  if (type !== undefined) {
    const names = Array.isArray(type) ? type : [type];
    const unknown = names.find((name) => typeof name !== 'string' || !TYPE_NAMES.has(name));
    if (unknown !== undefined || names.length === 0) {
      return {
        keyword: 'type',
        message: `unknown type ${JSON.stringify(unknown ?? type)} (use ${[...TYPE_NAMES].join(', ')})`,
      };
    }
  }
  if ('enum' in schema && !Array.isArray(schema.enum)) return { keyword: 'enum', message: "'enum' must be a list" };
  if (
    'required' in schema &&
    !(Array.isArray(schema.required) && schema.required.every((key) => typeof key === 'string'))
  ) {
    return { keyword: 'required', message: "'required' must be a list of property names" };
  }
  for (const keyword of NUMBER_KEYWORDS) {
    if (keyword in schema && (typeof schema[keyword] !== 'number' || !Number.isFinite(schema[keyword]))) {
      return { keyword, message: `'${keyword}' must be a number` };
    }
  }
  if ('multipleOf' in schema && !(typeof schema.multipleOf === 'number' && schema.multipleOf > 0)) {
    return { keyword: 'multipleOf', message: "'multipleOf' must be a number greater than 0" };
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    if (keyword in schema && !(Array.isArray(schema[keyword]) && (schema[keyword] as unknown[]).every(isSchema))) {
      return { keyword, message: `'${keyword}' must be a list of schemas` };
    }
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    if (keyword in schema && !(isObject(schema[keyword]) && Object.values(schema[keyword] as object).every(isSchema))) {
      return { keyword, message: `'${keyword}' must map names to schemas` };
    }
  }
  if ('$ref' in schema && typeof schema.$ref !== 'string')
    return { keyword: '$ref', message: "'$ref' must be a string" };
  if ('format' in schema && typeof schema.format !== 'string')
    return { keyword: 'format', message: "'format' must be a string" };
  if ('items' in schema && !(isSchema(schema.items) || (Array.isArray(schema.items) && schema.items.every(isSchema)))) {
    return { keyword: 'items', message: "'items' must be a schema or a list of schemas" };
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSchema(value: unknown): boolean {
  return typeof value === 'boolean' || isObject(value);
}
