import { describe, expect, it } from '@jest/globals';
import { REDACTED_SECRET, SecretRedactor } from './secret-redactor.js';

describe('SecretRedactor', () => {
  it('replaces every secret, the longest first, and leaves short ones and other text alone', () => {
    const redactor = new SecretRedactor(() => ['hunter2pass', 'hunter2pass-long', 'abc', 'a.b*c']);
    expect(redactor.redact('pw=hunter2pass-long; again hunter2pass; abc; a.b*c; aXbbc')).toBe(
      `pw=${REDACTED_SECRET}; again ${REDACTED_SECRET}; abc; ${REDACTED_SECRET}; aXbbc`,
    );
  });

  it('follows its source: a secret added later is redacted from then on', () => {
    const secrets = ['first-secret'];
    const redactor = new SecretRedactor(() => secrets);
    expect(redactor.redact('second-secret')).toBe('second-secret');
    secrets.push('second-secret');
    expect(redactor.redact('second-secret first-secret')).toBe(`${REDACTED_SECRET} ${REDACTED_SECRET}`);
  });

  it('catches a secret split between pieces of a stream, and gives back held text that was not one', () => {
    const redactor = new SecretRedactor(() => ['correct-horse-battery']);
    const stream = redactor.stream();
    const out = [stream.push('log: correct-hor'), stream.push('se-battery done, correct'), stream.push('ly so'), stream.end()];
    expect(out.join('')).toBe(`log: ${REDACTED_SECRET} done, correctly so`);
    expect(out.join('')).not.toContain('correct-horse');
    // Every piece is safe on its own: nothing of the secret leaves before it is known not to be one.
    expect(out[0]).toBe('log: ');
  });

  it('gives back what it held at the end of a stream', () => {
    const stream = new SecretRedactor(() => ['s3cret-value']).stream();
    expect(stream.push('tail s3cr')).toBe('tail ');
    expect(stream.end()).toBe('s3cr');
  });
});
