import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { VAULT_ACCOUNTS_PURPOSE } from '../crypto/purposes.js';
import { SecretBox, vaultKeyRingOf } from '../crypto/secret-box.js';

/** What one account keeps sealed: the password, the TOTP secret (a canonical otpauth URI) and the notes. */
const sealedLoginSchema = z.object({
  password: z.string(),
  totp: z.string().nullable(),
  notes: z.string(),
});
export type SealedLogin = z.infer<typeof sealedLoginSchema>;

export class VaultSecretUnreadableError extends Error {
  override readonly name = 'VaultSecretUnreadableError';
  constructor(readonly accountId: string) {
    super(`the secrets of vault account ${accountId} cannot be opened (LAZYBOY_VAULT_KEY changed, or the row is damaged)`);
  }
}

/** The vault's box: one AES-256-GCM cipher per account, under its own key derived from LAZYBOY_VAULT_KEY. */
@Injectable()
export class VaultSecrets {
  private readonly box: SecretBox;

  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    this.box = new SecretBox(vaultKeyRingOf(config), VAULT_ACCOUNTS_PURPOSE);
  }

  seal(login: SealedLogin): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.box.seal(JSON.stringify(login)));
  }

  open(accountId: string, cipher: Uint8Array): SealedLogin {
    try {
      return sealedLoginSchema.parse(JSON.parse(this.box.open(cipher)));
    } catch {
      throw new VaultSecretUnreadableError(accountId);
    }
  }
}
