import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Sealed before key ids: opened by trying each key of the ring. */
const LEGACY_VERSION = 1;
const VERSION = 2;
const KEY_ID_BYTES = 4;
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

/** The vault key that seals, and the earlier ones still accepted for opening while a rotation runs. */
export interface VaultKeyRing {
  current: string;
  previous?: readonly string[];
}

/**
 * Secrets at rest, sealed and opened. One port for every kind of stored secret (model keys, computer
 * tokens, saved logins); SecretBox is its adapter.
 */
export interface SecretSealer {
  seal(plaintext: string): Buffer;
  /** The plaintext, or SecretBoxError when no key of the ring opens it or it was altered. */
  open(sealed: Uint8Array): string;
  /** Whether the secret is sealed under the current key (a rotation re-seals the others). */
  isCurrent(sealed: Uint8Array): boolean;
}

interface RingKey {
  id: Buffer;
  key: Buffer;
}

/**
 * AES-256-GCM for secrets at rest. Each purpose gets its own key derived from each master key (HKDF-SHA256
 * with the purpose as info), so a ciphertext of one kind can never be opened as another. Layout: version
 * 2 (1 byte) ‖ key id (4: from the master key, naming which key of the ring sealed it) ‖ nonce (12) ‖
 * tag (16) ‖ ciphertext; version, purpose and key id are authenticated too. Version 1 (no key id) is still
 * opened, by trying every key.
 */
export class SecretBox implements SecretSealer {
  private readonly current: RingKey;
  private readonly ring: RingKey[];

  constructor(
    keys: string | VaultKeyRing,
    private readonly purpose: string,
  ) {
    const ring = typeof keys === 'string' ? { current: keys } : keys;
    const make = (master: string): RingKey => ({
      id: deriveKey(master, 'key-id').subarray(0, KEY_ID_BYTES),
      key: deriveKey(master, purpose),
    });
    this.current = make(ring.current);
    this.ring = [this.current, ...(ring.previous ?? []).filter((key) => key !== ring.current).map(make)];
  }

  seal(plaintext: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    cipher.setAAD(this.aad(VERSION, this.current.id));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), this.current.id, nonce, cipher.getAuthTag(), body]);
  }

  open(sealed: Uint8Array): string {
    const data = Buffer.from(sealed);
    if (data[0] === VERSION && data.length >= 1 + KEY_ID_BYTES + NONCE_BYTES + TAG_BYTES) {
      const id = data.subarray(1, 1 + KEY_ID_BYTES);
      const key = this.ring.find((k) => k.id.equals(id));
      if (!key) throw new SecretBoxError('the secret was sealed with a vault key this server does not have');
      const opened = this.tryOpen(key.key, this.aad(VERSION, id), data.subarray(1 + KEY_ID_BYTES));
      if (opened === undefined) throw new SecretBoxError('the secret cannot be opened (altered, or sealed for another purpose)');
      return opened;
    }
    if (data[0] === LEGACY_VERSION && data.length >= 1 + NONCE_BYTES + TAG_BYTES) {
      for (const key of this.ring) {
        const opened = this.tryOpen(key.key, this.aad(LEGACY_VERSION), data.subarray(1));
        if (opened !== undefined) return opened;
      }
      throw new SecretBoxError('the secret cannot be opened with this key (altered, or sealed with another key)');
    }
    throw new SecretBoxError('not a sealed secret');
  }

  isCurrent(sealed: Uint8Array): boolean {
    const data = Buffer.from(sealed);
    return data[0] === VERSION && data.subarray(1, 1 + KEY_ID_BYTES).equals(this.current.id);
  }

  private aad(version: number, keyId?: Buffer): Buffer {
    const base = `lazyboy:${this.purpose}:v${version}`;
    return Buffer.from(keyId ? `${base}:${keyId.toString('hex')}` : base, 'utf8');
  }

  /** nonce ‖ tag ‖ ciphertext opened with one key, or undefined when it does not open. */
  private tryOpen(key: Buffer, aad: Buffer, rest: Buffer): string | undefined {
    const nonce = rest.subarray(0, NONCE_BYTES);
    const tag = rest.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(rest.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** The ring an API configuration names: LAZYBOY_VAULT_KEY seals, LAZYBOY_VAULT_OLD_KEYS still open. */
export function vaultKeyRingOf(config: { LAZYBOY_VAULT_KEY: string; LAZYBOY_VAULT_OLD_KEYS: readonly string[] }): VaultKeyRing {
  return { current: config.LAZYBOY_VAULT_KEY, previous: config.LAZYBOY_VAULT_OLD_KEYS };
}
