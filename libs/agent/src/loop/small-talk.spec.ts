import { describe, expect, it } from '@jest/globals';
import { isSmallTalk } from './small-talk.js';

describe('isSmallTalk', () => {
  it.each(['hi', 'Hello!', 'good morning', 'thanks a lot', '你好', '你好嗎？', '謝謝', '早安～', 'how are you?'])(
    '%s is small talk',
    (text) => {
      expect(isSmallTalk(text)).toBe(true);
    },
  );

  it.each([
    'hi, open example.com and sign in',
    'hello can you check https://status.example.org',
    '你好，幫我查明天的天氣',
    'list the files in my home directory',
    'highlight the syntax errors', // starts with "hi" but is not a greeting
    '',
  ])('%s is a task', (text) => {
    expect(isSmallTalk(text)).toBe(false);
  });
});
