import { describe, expect, it } from '@jest/globals';
import { SecretBox, SecretBoxError } from './secret-box.js';

const KEY = 'master-key-0123456789abcdef0123456789';

describe('SecretBox', () => {
  it('round-trips, with a fresh nonce each time', () => {
    const box = new SecretBox(KEY, 'computer-control-token');
    const a = box.seal('token value');
    const b = box.seal('token value');
    expect(a.equals(b)).toBe(false);
    expect(a.toString('latin1')).not.toContain('token value');
    expect(box.open(a)).toBe('token value');
  });

  it('refuses ciphertexts of another key or purpose, and altered ones', () => {
    const sealed = new SecretBox(KEY, 'computer-control-token').seal('secret');
    expect(() => new SecretBox(KEY, 'vault').open(sealed)).toThrow(SecretBoxError);
    expect(() => new SecretBox(`${KEY}x`, 'computer-control-token').open(sealed)).toThrow(SecretBoxError);
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => new SecretBox(KEY, 'computer-control-token').open(altered)).toThrow(SecretBoxError);
    expect(() => new SecretBox(KEY, 'computer-control-token').open(Buffer.from('short'))).toThrow(SecretBoxError);
  });
});
