import { describe, expect, it } from '@jest/globals';
import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  const stream =
    'event: response.created\ndata: {"a":1}\n\n: keep-alive comment\n\ndata: first line\ndata: second line\n\ndata: [DONE]\n\n';

  it('reads events whichever way the chunks are cut', () => {
    const expected = [{ event: 'response.created', data: '{"a":1}' }, { data: 'first line\nsecond line' }, { data: '[DONE]' }];
    for (const size of [1, 2, 3, 7, stream.length]) {
      const parser = new SseParser();
      const events = [];
      for (let start = 0; start < stream.length; start += size) events.push(...parser.push(stream.slice(start, start + size)));
      events.push(...parser.end());
      expect(events).toEqual(expected);
    }
  });

  it('accepts CRLF and CR line endings, even with CR and LF in different chunks', () => {
    const parser = new SseParser();
    const events = [...parser.push('data: a\r'), ...parser.push('\n\r'), ...parser.push('\ndata:b\r\r')];
    // The last CR may yet turn out to be half of a CRLF, so "b" waits for the next chunk.
    expect(events).toEqual([{ data: 'a' }]);
    expect(parser.push('data: c\n\n')).toEqual([{ data: 'b' }, { data: 'c' }]);
  });

  it('dispatches a last event that lacks its blank line', () => {
    const parser = new SseParser();
    expect(parser.push('data: {"x":true}')).toEqual([]);
    expect(parser.end()).toEqual([{ data: '{"x":true}' }]);
  });
});
