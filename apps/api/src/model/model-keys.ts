import { Inject, Injectable, Logger } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { MODEL_KEYS_PURPOSE } from '../crypto/purposes.js';
import { SecretBox, SecretBoxError, vaultKeyRingOf } from '../crypto/secret-box.js';

/** A key this short shows none of its characters: four would give away too much of it. */
const SHORTEST_HINTED_KEY = 8;

/** Model API keys at rest: sealed with their own key derived from LAZYBOY_VAULT_KEY, opened only to be sent. */
@Injectable()
export class ModelKeys {
  private readonly box: SecretBox;
  private readonly logger = new Logger(ModelKeys.name);

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    this.box = new SecretBox(vaultKeyRingOf(config), MODEL_KEYS_PURPOSE);
  }

  seal(apiKey: string): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.box.seal(apiKey));
  }

  /**
   * The key a row holds; undefined when it holds none or one that cannot be opened (LAZYBOY_VAULT_KEY
   * changed, or the cipher is damaged): such a key is as good as none. It is never sent, readiness says
   * model_key_missing where the provider needs one, the view shows no last four, and it can be removed
   * or replaced as usual.
   */
  open(cipher: Uint8Array | null): string | undefined {
    if (!cipher) return undefined;
    try {
      return this.box.open(cipher);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      this.logger.warn(`a stored model key cannot be opened (${error.message}): treated as none`);
      return undefined;
    }
  }

  /** The stored key's last four characters, for owners and admins to recognise it; null when none, unreadable or too short. */
  last4(cipher: Uint8Array | null): string | null {
    const key = this.open(cipher);
    return key !== undefined && key.length >= SHORTEST_HINTED_KEY ? key.slice(-4) : null;
  }
}
