import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const secretsSchema = z.object({
  appToken: z.string().min(32),
  /** The Postgres superuser's: only `up` uses it, to set the database up. */
  postgresPassword: z.string().min(16),
  /** The API's own login role (no superuser), which owns the lazyboy database. */
  databasePassword: z.string().min(16),
  redisPassword: z.string().min(16),
  vaultKey: z.string().min(32),
  /**
   * Earlier vault keys after `lazyboy vault rotate-key`, still accepted for opening (LAZYBOY_VAULT_OLD_KEYS)
   * until every secret is re-sealed under vaultKey; then dropped.
   */
  oldVaultKeys: z.array(z.string().min(32)).default([]),
  /** Shared by the API and the web server (LAZYBOY_INTERNAL_SECRET). */
  internalSecret: z.string().min(32),
});
export type StackSecrets = z.infer<typeof secretsSchema>;

/** These came after the first releases: a file without them gets them on the next start. */
const storedSchema = secretsSchema.partial({ databasePassword: true, vaultKey: true, internalSecret: true });

const newKey = (): string => randomBytes(32).toString('base64url');
const newPassword = (): string => randomBytes(18).toString('base64url');

const fresh = (): StackSecrets => ({
  appToken: randomBytes(24).toString('base64url'),
  postgresPassword: newPassword(),
  databasePassword: newPassword(),
  redisPassword: newPassword(),
  vaultKey: newKey(),
  oldVaultKeys: [],
  internalSecret: newKey(),
});

/**
 * The stack's generated secrets, made on first start and kept (0600) so that restarts reuse the same
 * database passwords and admin token. LAZYBOY_APP_TOKEN, when set, wins for the admin token.
 */
export function loadOrCreateSecrets(file: string, env: Record<string, string | undefined>): StackSecrets {
  // Unknown keys (the control token older versions kept) are dropped by the parse.
  const stored = existsSync(file) ? storedSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : undefined;
  const secrets: StackSecrets = stored
    ? {
        ...stored,
        databasePassword: stored.databasePassword ?? newPassword(),
        vaultKey: stored.vaultKey ?? newKey(),
        internalSecret: stored.internalSecret ?? newKey(),
      }
    : fresh();
  if (!stored?.databasePassword || !stored.vaultKey || !stored.internalSecret) writeSecrets(file, secrets);
  const override = env.LAZYBOY_APP_TOKEN;
  return override ? { ...secrets, appToken: override } : secrets;
}

/** Written whole or not at all (a rotation must never leave a file with the new key lost), mode 0600. */
function writeSecrets(file: string, secrets: StackSecrets): void {
  const next = `${file}.next`;
  writeFileSync(next, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  // The mode above only applies to a new file.
  chmodSync(next, 0o600);
  renameSync(next, file);
}

/** A new vault key seals from the next API start on; the current one joins the old keys, still opening. */
export function rotateVaultKey(file: string): StackSecrets {
  const secrets = loadOrCreateSecrets(file, {});
  const rotated = { ...secrets, vaultKey: newKey(), oldVaultKeys: [secrets.vaultKey, ...secrets.oldVaultKeys] };
  writeSecrets(file, rotated);
  return rotated;
}

/** Every secret is sealed under the current key: the old keys go (only those `retired` names: a rotation since keeps its own). */
export function retireOldVaultKeys(file: string, retired: readonly string[]): void {
  const secrets = loadOrCreateSecrets(file, {});
  writeSecrets(file, { ...secrets, oldVaultKeys: secrets.oldVaultKeys.filter((key) => !retired.includes(key)) });
}
