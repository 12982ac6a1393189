import { describe, expect, it } from '@jest/globals';
import { hashPassword, verifyPassword } from './password-hasher.js';

describe('password hasher', () => {
  it('verifies the password it hashed and nothing else', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('salts every hash and treats Unicode forms alike', async () => {
    const [a, b] = await Promise.all([hashPassword('pässword'), hashPassword('pässword')]);
    expect(a).not.toBe(b);
    // "ä" precomposed vs. "a" + combining diaeresis: the same password typed on two keyboards.
    expect(await verifyPassword('pa\u0308ssword', a)).toBe(true);
  });

  it('rejects stored values it does not understand', async () => {
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });
});
