import { describe, expect, it } from '@jest/globals';
import type { ChatMessage, ToolSpec } from '@lazyboy/contracts';
import { z } from 'zod';
import { buildTranscript, fitTranscript, renderTranscript } from './transcript.js';

const lookup: ToolSpec = {
  name: 'lookup',
  description: 'Looks a word up\nin the dictionary.',
  parameters: z.toJSONSchema(
    z.object({
      query: z.string().describe('The word'),
      options: z.object({ exact: z.boolean(), lang: z.enum(['en', 'fr']).optional() }).optional(),
      tags: z.array(z.union([z.string(), z.number()])),
    }),
  ),
};

const conversation: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is this?' },
      { type: 'image', mimeType: 'image/png', dataBase64: 'AA==' },
    ],
  },
  { role: 'assistant', content: 'Let me look.', toolCalls: [{ id: 'local_1', name: 'lookup', arguments: '{"query":"gguf"}' }] },
  { role: 'tool', toolCallId: 'local_1', content: 'A model file format.' },
];

describe('buildTranscript', () => {
  it('writes the conversation as a plain-text transcript ending with the assistant cue', () => {
    expect(renderTranscript(buildTranscript(conversation))).toBe(
      [
        'system: Be brief.',
        'user: What is this?\n[image (image/png) not shown]',
        'assistant: Let me look.\nassistant: {"name":"lookup","arguments":{"query":"gguf"}}',
        'tool (lookup): A model file format.',
        'assistant:',
      ].join('\n\n'),
    );
  });

  it('lists the tools with an outline of their arguments and the reply format', () => {
    const { header } = buildTranscript(conversation, { tools: [lookup], allowAnswer: true });
    expect(header).toBe(
      [
        'system: Be brief.',
        '',
        'Tools the assistant can call:',
        '- lookup: Looks a word up in the dictionary.',
        '    query: string — The word',
        '    options?: {exact: boolean, lang?: "en" | "fr"}',
        '    tags: (string | number)[]',
        'The assistant replies with one JSON object: {"name": "<tool>", "arguments": {…}} calls a tool, {"answer": "<text>"} answers.',
      ].join('\n'),
    );
    expect(buildTranscript(conversation, { tools: [lookup], allowAnswer: false }).header).toMatch(
      /replies with one JSON object calling a tool: \{"name": "<tool>", "arguments": \{…\}\}\.$/,
    );
  });
});

describe('fitTranscript', () => {
  const turns: ChatMessage[] = [{ role: 'system', content: 'S' }];
  for (let turn = 1; turn <= 6; turn++) turns.push({ role: 'user', content: `message ${turn} `.repeat(5) });
  const transcript = buildTranscript(turns);
  const countTokens = (text: string): number => text.length;

  it('keeps everything that fits', () => {
    const full = renderTranscript(transcript);
    expect(fitTranscript(transcript, countTokens, full.length)).toEqual({ text: full, tokens: full.length, firstTurn: 0 });
  });

  it('leaves out the oldest turns first, and says so', () => {
    const fitted = fitTranscript(transcript, countTokens, 200);
    expect(fitted?.tokens).toBeLessThanOrEqual(200);
    expect(fitted?.firstTurn).toBeGreaterThan(0);
    expect(fitted?.text).toMatch(/^system: S\n\n\(\d earlier messages left out: the context is full\)\n\n/);
    expect(fitted?.text).toMatch(/message 6 [^]*assistant:$/);
  });

  it('is undefined when even the header and the last turn do not fit', () => {
    expect(fitTranscript(transcript, countTokens, 40)).toBeUndefined();
  });
});
