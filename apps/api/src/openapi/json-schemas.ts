import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';

/**
 * zod → JSON Schema (draft 2020-12, which OpenAPI 3.1 uses as is) for one document. Definitions zod puts in
 * `$defs` (schemas with an id, recursive ones) are hoisted into components.schemas, because `#/$defs/…`
 * would otherwise point at the root of the OpenAPI document.
 */
export class JsonSchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  /** `io: 'input'` for what clients send (defaults optional), `'output'` for what the API answers. */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _dialect,
      $defs,
      ...root
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const renames = new Map<string, string>();
    for (const name of Object.keys($defs ?? {})) renames.set(`#/$defs/${name}`, REF_PREFIX + this.freeName(name));
    if (containsRef(root, '#')) renames.set('#', REF_PREFIX + this.freeName('Schema'));
    const rewrite = (value: unknown) => rewriteRefs(value, renames) as JsonSchema;
    for (const [name, definition] of Object.entries($defs ?? {})) {
      this.components[renames.get(`#/$defs/${name}`)!.slice(REF_PREFIX.length)] = rewrite(definition);
    }
    const rootRef = renames.get('#');
    if (!rootRef) return rewrite(root);
    // A recursive root refers to itself: it becomes a component and the caller gets a reference to it.
    this.components[rootRef.slice(REF_PREFIX.length)] = rewrite(root);
    return { $ref: rootRef };
  }

  /** Registers a named component (the error body) and returns a reference to it. */
  named(name: string, schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    this.components[name] = this.convert(schema, io);
    return { $ref: REF_PREFIX + name };
  }

  private freeName(wanted: string): string {
    const base = wanted.replace(/[^A-Za-z0-9._-]/g, '_') || 'Schema';
    let name = base;
    for (let n = 2; name in this.components || this.reserved.has(name); n++) name = `${base}${n}`;
    this.reserved.add(name);
    return name;
  }

  private readonly reserved = new Set<string>();
}

function rewriteRefs(value: unknown, renames: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, renames));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof item === 'string' ? rewriteRef(item, renames) : rewriteRefs(item, renames);
  }
  return out;
}

function rewriteRef(ref: string, renames: Map<string, string>): string {
  if (renames.has(ref)) return renames.get(ref)!;
  // A pointer into a definition: #/$defs/Name/properties/x.
  for (const [from, to] of renames) if (from !== '#' && ref.startsWith(`${from}/`)) return to + ref.slice(from.length);
  return ref;
}

function containsRef(value: unknown, ref: string): boolean {
  if (Array.isArray(value)) return value.some((item) => containsRef(item, ref));
  if (!value || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => (key === '$ref' ? item === ref : containsRef(item, ref)));
}
