import { isRecord, type JsonRecord } from '../../json-values.js';

// node-llama-cpp turns a JSON Schema into a llama.cpp grammar, but understands only a subset of it:
// type (one or a list), const, enum, oneOf, object properties (every listed property is then required),
// additionalProperties, array items, min/maxItems, string min/maxLength and three formats. Anything else is
// ignored, and some of it silently changes the meaning: `anyOf` is not understood, and `{type: 'object'}`
// without properties only allows `{}`. So a tool's parameter schema is translated here into that subset,
// keeping what the model must produce as close to the original as the subset can say. What it cannot say
// (`pattern`, `minimum`, recursive `$ref`…) is left to the tool's own validation of the arguments.

export type GrammarSchema = JsonRecord;

/**
 * Strings of the model's choice are bounded, so that a model that never closes its quote still stops. Also
 * the most a string can be: llama.cpp refuses grammars with larger repetitions (2000 already fails).
 */
export const STRING_MAX_LENGTH = 1000;
/** Larger array bounds are dropped: llama.cpp expands a bounded repetition into one rule per item. */
const MAX_ITEMS_BOUND = 100;
/** Bound of the string values of open-ended objects, whose size the schema does not limit at all. */
export const FREE_VALUE_MAX_LENGTH = 200;
const MAX_DEPTH = 32;

const NULL: GrammarSchema = { type: 'null' };

/** One JSON scalar: what the grammar allows where the schema allows anything. */
export const FREE_VALUE: GrammarSchema = {
  oneOf: [{ type: 'string', maxLength: FREE_VALUE_MAX_LENGTH }, { type: ['number', 'boolean', 'null'] }],
};

/** An object of scalars under any keys: the arguments of a tool whose schema the subset cannot express. */
export const FREE_FORM_OBJECT: GrammarSchema = { type: 'object', additionalProperties: FREE_VALUE };

type Literal = string | number | boolean | null;

const isLiteral = (value: unknown): value is Literal =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

interface Walk {
  root: JsonRecord;
  /** The $refs being expanded: seeing one again means a recursive schema, which a grammar cannot inline. */
  expanding: ReadonlySet<string>;
  depth: number;
}

/**
 * The grammar schema for `schema`, or undefined when the subset cannot express it. Optional properties
 * become "the value or null", since the grammar has to produce every property it knows; dropOmittedOptionals
 * then removes those nulls from the model's arguments.
 */
export function toGrammarSchema(schema: unknown): GrammarSchema | undefined {
  return convert(schema, { root: isRecord(schema) ? schema : {}, expanding: new Set(), depth: 0 });
}

function convert(schema: unknown, walk: Walk): GrammarSchema | undefined {
  if (schema === true) return FREE_VALUE;
  if (!isRecord(schema) || walk.depth > MAX_DEPTH) return undefined;
  const inner = { ...walk, depth: walk.depth + 1 };
  if (typeof schema['$ref'] === 'string') return convertRef(schema['$ref'], inner);
  const converted = convertWithoutRef(schema, inner);
  return converted && schema['nullable'] === true ? orNull(converted) : converted;
}

function convertRef(ref: string, walk: Walk): GrammarSchema | undefined {
  if (walk.expanding.has(ref)) return undefined;
  const target = resolveRef(walk.root, ref);
  return target === undefined ? undefined : convert(target, { ...walk, expanding: new Set([...walk.expanding, ref]) });
}

/** Local JSON Pointer references only (`#/$defs/x`, `#/definitions/x`): tool schemas carry their own definitions. */
export function resolveRef(root: JsonRecord, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const segment of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isRecord(node) ? node[key] : undefined;
  }
  return node;
}

function convertWithoutRef(schema: JsonRecord, walk: Walk): GrammarSchema | undefined {
  if ('const' in schema) return isLiteral(schema['const']) ? { const: schema['const'] } : undefined;
  const values = schema['enum'];
  if (Array.isArray(values)) return values.length > 0 && values.every(isLiteral) ? { enum: values } : undefined;
  // A grammar's alternatives accept whatever any of them accepts: anyOf, which is also all a grammar can
  // check of oneOf (the "exactly one" part is left to the tool).
  const alternatives = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(alternatives)) return union(alternatives.map((alternative) => convert(alternative, walk)));
  const all = schema['allOf'];
  if (Array.isArray(all)) return all.length === 1 ? convert(all[0], walk) : undefined;
  const types = typesOf(schema);
  if (types === undefined) return undefined;
  if (types.length === 0) return FREE_VALUE;
  return union(types.map((type) => convertType(type, schema, walk)));
}

/** The schema's types; inferred from its keywords when it names none; undefined when a type is not a string. */
function typesOf(schema: JsonRecord): string[] | undefined {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.every((item) => typeof item === 'string') ? type : undefined;
  if (type !== undefined) return undefined;
  if (isRecord(schema['properties']) || schema['additionalProperties'] !== undefined) return ['object'];
  if (schema['items'] !== undefined) return ['array'];
  return [];
}

function convertType(type: string, schema: JsonRecord, walk: Walk): GrammarSchema | undefined {
  switch (type) {
    case 'string':
      return stringSchema(schema);
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type };
    case 'object':
      return objectSchema(schema, walk);
    case 'array':
      return arraySchema(schema, walk);
    default:
      return undefined;
  }
}

const GRAMMAR_FORMATS = new Set(['date-time', 'date', 'time']);

function stringSchema(schema: JsonRecord): GrammarSchema {
  const format = schema['format'];
  if (typeof format === 'string' && GRAMMAR_FORMATS.has(format)) return { type: 'string', format };
  const minLength = Math.min(nonNegativeInteger(schema['minLength']) ?? 0, STRING_MAX_LENGTH);
  const maxLength = Math.min(
    Math.max(nonNegativeInteger(schema['maxLength']) ?? STRING_MAX_LENGTH, minLength),
    STRING_MAX_LENGTH,
  );
  return { type: 'string', ...(minLength > 0 ? { minLength } : {}), maxLength };
}

function objectSchema(schema: JsonRecord, walk: Walk): GrammarSchema | undefined {
  const properties = isRecord(schema['properties']) ? Object.entries(schema['properties']) : [];
  if (properties.length === 0) return openObjectSchema(schema['additionalProperties'], walk);
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : []);
  const converted: GrammarSchema = {};
  for (const [key, property] of properties) {
    const value = convert(property, walk);
    if (!value) return undefined;
    converted[key] = required.has(key) ? value : orNull(value);
  }
  // Extra properties next to declared ones are left out: a tool gains nothing from keys it did not ask for.
  return { type: 'object', properties: converted, required: properties.map(([key]) => key) };
}

/** An object described only by what its values look like (a record, a map, or "any object"). */
function openObjectSchema(additional: unknown, walk: Walk): GrammarSchema | undefined {
  if (additional === false) return { type: 'object' };
  if (isRecord(additional) && Object.keys(additional).length > 0) {
    const value = convert(additional, walk);
    return value ? { type: 'object', additionalProperties: value } : undefined;
  }
  return FREE_FORM_OBJECT;
}

function arraySchema(schema: JsonRecord, walk: Walk): GrammarSchema | undefined {
  const items = schema['items'] === undefined ? FREE_VALUE : convert(schema['items'], walk);
  if (!items) return undefined;
  const minItems = Math.min(nonNegativeInteger(schema['minItems']) ?? 0, MAX_ITEMS_BOUND);
  const maxItems = nonNegativeInteger(schema['maxItems']);
  return {
    type: 'array',
    items,
    ...(minItems > 0 ? { minItems } : {}),
    ...(maxItems !== undefined && maxItems <= MAX_ITEMS_BOUND ? { maxItems: Math.max(maxItems, minItems) } : {}),
  };
}

function nonNegativeInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** One schema accepting what any of `schemas` accepts; undefined if one of them could not be expressed. */
function union(schemas: (GrammarSchema | undefined)[]): GrammarSchema | undefined {
  const flat: GrammarSchema[] = [];
  for (const schema of schemas) {
    if (!schema) return undefined;
    const nested = schema['oneOf'];
    if (Array.isArray(nested) && Object.keys(schema).length === 1) flat.push(...(nested as GrammarSchema[]));
    else flat.push(schema);
  }
  const [only] = flat;
  if (flat.length === 1 && only) return only;
  return flat.length === 0 ? undefined : { oneOf: flat };
}

function orNull(schema: GrammarSchema): GrammarSchema {
  return union([schema, NULL]) ?? schema;
}

// ---- after generation -----------------------------------------------------------------------------------

/**
 * `value` without the nulls the model wrote for optional properties whose own schema does not allow null,
 * i.e. with those properties left out, as the tool expects. Follows properties, items and local $refs.
 */
export function dropOmittedOptionals(
  value: unknown,
  schema: unknown,
  root: JsonRecord = isRecord(schema) ? schema : {},
): unknown {
  const resolved = resolveSchema(schema, root);
  if (!resolved) return value;
  if (Array.isArray(value)) return value.map((item) => dropOmittedOptionals(item, resolved['items'], root));
  const properties = resolved['properties'];
  if (!isRecord(value) || !isRecord(properties)) return value;
  const required = new Set(Array.isArray(resolved['required']) ? resolved['required'] : []);
  const result: JsonRecord = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (item === null && !required.has(key) && !allowsNull(property, root)) continue;
    result[key] = property === undefined ? item : dropOmittedOptionals(item, property, root);
  }
  return result;
}

function resolveSchema(schema: unknown, root: JsonRecord, depth = 0): JsonRecord | undefined {
  if (!isRecord(schema) || depth > MAX_DEPTH) return undefined;
  const ref = schema['$ref'];
  return typeof ref === 'string' ? resolveSchema(resolveRef(root, ref), root, depth + 1) : schema;
}

function allowsNull(schema: unknown, root: JsonRecord, depth = 0): boolean {
  const resolved = resolveSchema(schema, root);
  if (!resolved || depth > MAX_DEPTH) return schema === true;
  const type = resolved['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null')) || resolved['nullable'] === true) return true;
  if ('const' in resolved) return resolved['const'] === null;
  const values = resolved['enum'];
  if (Array.isArray(values)) return values.includes(null);
  const alternatives = resolved['anyOf'] ?? resolved['oneOf'];
  if (Array.isArray(alternatives)) return alternatives.some((alternative) => allowsNull(alternative, root, depth + 1));
  return type === undefined && Object.keys(resolved).every((key) => key === 'description' || key === 'title');
}
