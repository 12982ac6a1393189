import { isRecord, type JsonRecord } from '../../json-values.js';
import { resolveRef } from './grammar-schema.js';

// How the transcript shows a tool's parameters to the model: one line per argument with a TypeScript-like
// type, instead of the JSON Schema itself. Small models read it more easily, and it costs a fraction of the
// tokens of a schema (a 4096-token context has little room to spare). The grammar enforces the details.

const MAX_DEPTH = 4;

/** One line per top-level argument: `name?: type — description`. */
export function outlineParameters(parameters: JsonRecord): string[] {
  const properties = isRecord(parameters['properties']) ? Object.entries(parameters['properties']) : [];
  if (properties.length === 0) return [`(arguments: ${typeOutline(parameters, parameters, 0)})`];
  const required = new Set(Array.isArray(parameters['required']) ? parameters['required'] : []);
  return properties.map(([key, property]) => {
    const description = isRecord(property) && typeof property['description'] === 'string' ? property['description'] : '';
    const type = typeOutline(property, parameters, 0);
    return `${key}${required.has(key) ? '' : '?'}: ${type}${description ? ` — ${description.replace(/\s+/g, ' ').trim()}` : ''}`;
  });
}

function typeOutline(schema: unknown, root: JsonRecord, depth: number): string {
  if (!isRecord(schema)) return 'any';
  if (depth > MAX_DEPTH) return 'object';
  if (typeof schema['$ref'] === 'string') return typeOutline(resolveRef(root, schema['$ref']), root, depth + 1);
  if ('const' in schema) return JSON.stringify(schema['const']);
  const values = schema['enum'];
  if (Array.isArray(values)) return values.map((value) => JSON.stringify(value)).join(' | ');
  const alternatives = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(alternatives))
    return alternatives.map((alternative) => typeOutline(alternative, root, depth + 1)).join(' | ');
  const type = schema['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : [];
  if (types.length === 0) return isRecord(schema['properties']) ? objectOutline(schema, root, depth) : 'any';
  return types
    .map((each) =>
      each === 'object' ? objectOutline(schema, root, depth) : each === 'array' ? arrayOutline(schema, root, depth) : each,
    )
    .join(' | ');
}

function objectOutline(schema: JsonRecord, root: JsonRecord, depth: number): string {
  const properties = isRecord(schema['properties']) ? Object.entries(schema['properties']) : [];
  if (properties.length === 0) {
    const values = schema['additionalProperties'];
    return isRecord(values) ? `{[key: string]: ${typeOutline(values, root, depth + 1)}}` : 'object';
  }
  const required = new Set(Array.isArray(schema['required']) ? schema['required'] : []);
  const fields = properties.map(
    ([key, value]) => `${key}${required.has(key) ? '' : '?'}: ${typeOutline(value, root, depth + 1)}`,
  );
  return `{${fields.join(', ')}}`;
}

function arrayOutline(schema: JsonRecord, root: JsonRecord, depth: number): string {
  const item = typeOutline(schema['items'], root, depth + 1);
  return item.includes('|') ? `(${item})[]` : `${item}[]`;
}
