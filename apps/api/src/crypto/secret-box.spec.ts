import { describe, expect, it } from '@jest/globals';
import { createCipheriv, randomBytes } from 'node:crypto';
import { deriveKey, SecretBox, SecretBoxError } from './secret-box.js';

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

/** A secret as the first SecretBox sealed it (version 1, no key id), to prove those still open. */
function sealVersion1(master: string, purpose: string, plaintext: string): Buffer {
  const key = deriveKey(master, purpose);
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(`lazyboy:${purpose}:v1`, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), nonce, cipher.getAuthTag(), body]);
}

describe('SecretBox key ring (rotation)', () => {
  const OLD = 'old-master-key-0123456789abcdef0123456789';
  const NEW = 'new-master-key-0123456789abcdef0123456789';

  it('seals with the current key and opens what any key of the ring sealed', () => {
    const before = new SecretBox(OLD, 'vault-accounts');
    const during = new SecretBox({ current: NEW, previous: [OLD] }, 'vault-accounts');
    const oldSecret = before.seal('old');
    const newSecret = during.seal('new');
    expect(during.open(oldSecret)).toBe('old');
    expect(during.open(newSecret)).toBe('new');
    expect(during.isCurrent(newSecret)).toBe(true);
    expect(during.isCurrent(oldSecret)).toBe(false);
    // A server that has not been given the new key yet names what it lacks.
    expect(() => before.open(newSecret)).toThrow(/vault key this server does not have/);
    // Once the old key is dropped, its secrets are gone: that is why a rotation re-seals first.
    expect(() => new SecretBox(NEW, 'vault-accounts').open(oldSecret)).toThrow(SecretBoxError);
  });

  it('opens secrets sealed before key ids existed, with any key of the ring', () => {
    const legacy = sealVersion1(OLD, 'model-keys', 'sk-legacy');
    expect(new SecretBox(OLD, 'model-keys').open(legacy)).toBe('sk-legacy');
    const ring = new SecretBox({ current: NEW, previous: [OLD] }, 'model-keys');
    expect(ring.open(legacy)).toBe('sk-legacy');
    expect(ring.isCurrent(legacy)).toBe(false);
    expect(() => new SecretBox(OLD, 'vault-accounts').open(legacy)).toThrow(SecretBoxError);
  });

  it('authenticates the key id: a cipher relabelled with another key id does not open', () => {
    const ring = new SecretBox({ current: NEW, previous: [OLD] }, 'vault-accounts');
    const byOld = new SecretBox(OLD, 'vault-accounts').seal('x');
    const relabelled = Buffer.from(byOld);
    ring.seal('y').copy(relabelled, 1, 1, 5);
    expect(() => ring.open(relabelled)).toThrow(SecretBoxError);
  });
});
