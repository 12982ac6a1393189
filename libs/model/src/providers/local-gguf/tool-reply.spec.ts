import { describe, expect, it } from '@jest/globals';
import type { ToolSpec } from '@lazyboy/contracts';
import { FREE_FORM_OBJECT, STRING_MAX_LENGTH } from './grammar-schema.js';
import { readToolReply, toolReplySchema, truncatedAnswer } from './tool-reply.js';

const lookup: ToolSpec = {
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer' } }, required: ['query'] },
};
const done: ToolSpec = { name: 'report_done', description: 'Ends.', parameters: { type: 'object', properties: {} } };

describe('toolReplySchema', () => {
  it('has one branch per tool, pinning its name, and one for an answer', () => {
    expect(toolReplySchema([lookup, done], true)).toEqual({
      oneOf: [
        {
          type: 'object',
          properties: {
            name: { const: 'lookup' },
            arguments: {
              type: 'object',
              properties: {
                query: { type: 'string', maxLength: STRING_MAX_LENGTH },
                limit: { oneOf: [{ type: 'integer' }, { type: 'null' }] },
              },
              required: ['query', 'limit'],
            },
          },
          required: ['name', 'arguments'],
        },
        {
          type: 'object',
          properties: { name: { const: 'report_done' }, arguments: FREE_FORM_OBJECT },
          required: ['name', 'arguments'],
        },
        { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
      ],
    });
  });

  it('offers no answer when a call is required, and free-form arguments on request', () => {
    expect(toolReplySchema([lookup], false)).toEqual(
      expect.objectContaining({ properties: expect.objectContaining({ name: { const: 'lookup' } }) }),
    );
    expect(toolReplySchema([lookup], false, true)).toEqual({
      type: 'object',
      properties: { name: { const: 'lookup' }, arguments: FREE_FORM_OBJECT },
      required: ['name', 'arguments'],
    });
  });
});

describe('readToolReply', () => {
  it('reads a call, leaving out the optional arguments the model set to null', () => {
    expect(readToolReply({ name: 'lookup', arguments: { query: 'gguf', limit: null } }, [lookup])).toEqual({
      kind: 'call',
      name: 'lookup',
      arguments: '{"query":"gguf"}',
    });
  });

  it('refuses a call with a number JSON cannot carry, rather than turning it into null', () => {
    // 1e999 is what node-llama-cpp's own number rule allows: JSON.stringify(Infinity) is "null".
    const reply = JSON.parse('{"name": "lookup", "arguments": {"query": "gguf", "limit": 1e999}}') as unknown;
    expect(readToolReply(reply, [lookup])).toBeUndefined();
    expect(readToolReply({ name: 'lookup', arguments: { query: 'gguf', limit: -Infinity } }, [lookup])).toBeUndefined();
    expect(readToolReply({ name: 'lookup', arguments: { query: 'gguf', limit: 1e15 } }, [lookup])).toEqual({
      kind: 'call',
      name: 'lookup',
      arguments: '{"query":"gguf","limit":1000000000000000}',
    });
  });

  it('reads an answer, and nothing else', () => {
    expect(readToolReply({ answer: 'Hello.' }, [lookup])).toEqual({ kind: 'answer', text: 'Hello.' });
    expect(readToolReply({ name: 'unknown', arguments: {} }, [lookup])).toBeUndefined();
    expect(readToolReply('lookup', [lookup])).toBeUndefined();
  });
});

describe('truncatedAnswer', () => {
  it('keeps the text of an answer cut off by the token limit', () => {
    expect(truncatedAnswer('{"answer": "The word means')).toBe('The word means');
    expect(truncatedAnswer('{"answer":"line one\\nline \\')).toBe('line one\nline ');
    expect(truncatedAnswer('{"answer":"caf\\u00')).toBe('caf');
    expect(truncatedAnswer('{"answer":"a \\\\')).toBe('a \\');
    expect(truncatedAnswer('{"answer":"complete"')).toBe('complete');
  });

  it('is undefined for a cut-off tool call', () => {
    expect(truncatedAnswer('{"name":"lookup","arguments":{"query":"gg')).toBeUndefined();
    expect(truncatedAnswer('{"ans')).toBeUndefined();
  });
});
