import { describe, expect, it } from '@jest/globals';
import { withPlainNumbers } from './number-rules.js';

// What node-llama-cpp 3.21 generates for {a: integer or null, b: number, s: string of at most 3}.
const GENERATED = [
  'root ::= "{" "\\"a\\"" ":" [ ]? rule0 "," "\\"b\\"" ":" [ ]? fractional-number-rule "," "\\"s\\"" ":" [ ]? string-0-3-rule "}"',
  'integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?',
  'null-rule ::= "null"',
  'rule0 ::= ( integer-number-rule | null-rule )',
  'fractional-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?',
  'string-char-rule ::= [^"\\\\\\x7F\\x00-\\x1F] | "\\\\" ["\\\\/bfnrt] | "\\\\u" [0-9a-fA-F]{4}',
  'string-0-3-rule ::= "\\"" ( string-char-rule ){0,3} "\\""',
].join('\n');

describe('withPlainNumbers', () => {
  it('takes the exponent out of the number rules, so that no number reads as Infinity, and keeps integers exact', () => {
    const lines = withPlainNumbers(GENERATED).split('\n');
    expect(lines.filter((line) => line.includes('number-rule ::='))).toEqual([
      'integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,14})',
      'fractional-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})?',
    ]);
    expect(lines.filter((line) => !line.includes('number-rule ::='))).toEqual(
      GENERATED.split('\n').filter((line) => !line.includes('number-rule ::=')),
    );
  });
});
