import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { dropOmittedOptionals, FREE_FORM_OBJECT, FREE_VALUE, STRING_MAX_LENGTH, toGrammarSchema } from './grammar-schema.js';

const string = { type: 'string', maxLength: STRING_MAX_LENGTH };
const orNull = (schema: object) => ({ oneOf: [schema, { type: 'null' }] });

describe('toGrammarSchema', () => {
  it('translates a zod tool schema: every property listed, optional ones nullable, strings bounded', () => {
    const schema = z
      .object({
        path: z.string().min(1).describe('Where'),
        mode: z.enum(['read', 'write']),
        lines: z.number().int().optional(),
        tags: z.array(z.string()).max(3),
        labels: z.record(z.string(), z.number()),
        note: z.string().nullable(),
        either: z.union([z.string(), z.boolean()]),
      })
      .strict();
    expect(toGrammarSchema(z.toJSONSchema(schema))).toEqual({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, maxLength: STRING_MAX_LENGTH },
        mode: { enum: ['read', 'write'] },
        lines: orNull({ type: 'integer' }),
        tags: { type: 'array', items: string, maxItems: 3 },
        labels: { type: 'object', additionalProperties: { type: 'number' } },
        note: orNull(string),
        either: { oneOf: [string, { type: 'boolean' }] },
      },
      required: ['path', 'mode', 'lines', 'tags', 'labels', 'note', 'either'],
    });
  });

  it('gives open-ended objects and untyped values a bounded shape instead of "{}" or "null only"', () => {
    expect(toGrammarSchema({ type: 'object' })).toEqual(FREE_FORM_OBJECT);
    expect(toGrammarSchema({ type: 'object', properties: {} })).toEqual(FREE_FORM_OBJECT);
    expect(toGrammarSchema({ type: 'object', additionalProperties: false })).toEqual({ type: 'object' });
    expect(toGrammarSchema({})).toEqual(FREE_VALUE);
    expect(toGrammarSchema({ type: 'array' })).toEqual({ type: 'array', items: FREE_VALUE });
    expect(toGrammarSchema({ type: 'string', nullable: true })).toEqual(orNull(string));
  });

  it('keeps within what llama.cpp accepts: long strings capped, large array bounds dropped, formats kept', () => {
    expect(toGrammarSchema({ type: 'string', maxLength: 50_000 })).toEqual(string);
    expect(toGrammarSchema({ type: 'string', minLength: 5, maxLength: 2 })).toEqual({
      type: 'string',
      minLength: 5,
      maxLength: 5,
    });
    expect(toGrammarSchema({ type: 'array', items: { type: 'integer' }, maxItems: 5000 })).toEqual({
      type: 'array',
      items: { type: 'integer' },
    });
    expect(toGrammarSchema({ type: 'string', format: 'date-time' })).toEqual({ type: 'string', format: 'date-time' });
    expect(toGrammarSchema({ type: 'string', format: 'email', pattern: '^.+@.+$' })).toEqual(string);
  });

  it('inlines local $refs and gives up on recursive ones', () => {
    const point = { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] };
    expect(
      toGrammarSchema({
        type: 'object',
        properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/definitions/point' } },
        required: ['from', 'to'],
        $defs: { point },
        definitions: { point },
      }),
    ).toEqual({
      type: 'object',
      properties: { from: point, to: point },
      required: ['from', 'to'],
    });
    const tree = { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    expect(toGrammarSchema(tree)).toBeUndefined();
  });

  it('says undefined for what it cannot express', () => {
    expect(toGrammarSchema(false)).toBeUndefined();
    expect(toGrammarSchema({ allOf: [{ type: 'string' }, { minLength: 2 }] })).toBeUndefined();
    expect(toGrammarSchema({ enum: [{ a: 1 }] })).toBeUndefined();
    expect(toGrammarSchema({ type: 'tuple' })).toBeUndefined();
    expect(toGrammarSchema({ $ref: 'https://example.com/schema.json' })).toBeUndefined();
  });
});

describe('dropOmittedOptionals', () => {
  const schema = z.toJSONSchema(
    z.object({
      name: z.string(),
      note: z.string().nullable().optional(),
      limit: z.number().optional(),
      owner: z.object({ id: z.string(), team: z.string().optional() }).optional(),
      items: z.array(z.object({ id: z.string(), tag: z.string().optional() })),
    }),
  );

  it('removes the nulls written for optional properties that do not allow null, at every depth', () => {
    expect(
      dropOmittedOptionals(
        { name: 'a', note: null, limit: null, owner: { id: 'o', team: null }, items: [{ id: 'i', tag: null }] },
        schema,
      ),
    ).toEqual({ name: 'a', note: null, owner: { id: 'o' }, items: [{ id: 'i' }] });
    expect(dropOmittedOptionals({ name: 'a', owner: null, items: [] }, schema)).toEqual({ name: 'a', items: [] });
  });
});
