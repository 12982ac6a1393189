import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A 32-byte key for one purpose (encryption, ticket signing), derived from the master key. */
export function deriveKey(masterKey: string, purpose: string): Buffer {
  if (masterKey.length < 32) throw new SecretBoxError('the master key must be at least 32 characters');
  return Buffer.from(hkdfSync('sha256', Buffer.from(masterKey, 'utf8'), Buffer.alloc(0), `lazyboy:${purpose}`, 32));
}

export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

/**
 * AES-256-GCM for secrets at rest. Each purpose gets its own key derived from the master key (HKDF-SHA256
 * with the purpose as info), so a ciphertext of one kind can never be opened as another. Layout:
 * version (1 byte) ‖ nonce (12) ‖ tag (16) ‖ ciphertext; the version and purpose are authenticated too.
 */
export class SecretBox {
  private readonly key: Buffer;
  private readonly aad: Buffer;

  constructor(masterKey: string, purpose: string) {
    this.key = deriveKey(masterKey, purpose);
    this.aad = Buffer.from(`lazyboy:${purpose}:v${VERSION}`, 'utf8');
  }

  seal(plaintext: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(this.aad);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
  }

  /** The plaintext, or SecretBoxError when the ciphertext was made with another key or purpose, or altered. */
  open(sealed: Uint8Array): string {
    const data = Buffer.from(sealed);
    if (data.length < 1 + NONCE_BYTES + TAG_BYTES || data[0] !== VERSION) throw new SecretBoxError('not a sealed secret');
    const nonce = data.subarray(1, 1 + NONCE_BYTES);
    const tag = data.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
    decipher.setAAD(this.aad);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(data.subarray(1 + NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('the secret cannot be opened with this key (altered, or sealed with another key)');
    }
  }
}
