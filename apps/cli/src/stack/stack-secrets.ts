import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const secretsSchema = z.object({
  appToken: z.string().min(32),
  /** The Postgres superuser's: only `up` uses it, to set the database up. */
  postgresPassword: z.string().min(16),
  /** The API's own login role (no superuser), which owns the lazyboy database. */
  databasePassword: z.string().min(16),
  redisPassword: z.string().min(16),
  vaultKey: z.string().min(32),
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
  if (!stored?.databasePassword || !stored.vaultKey || !stored.internalSecret) {
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
    // The mode above only applies to a new file.
    chmodSync(file, 0o600);
  }
  const override = env.LAZYBOY_APP_TOKEN;
  return override ? { ...secrets, appToken: override } : secrets;
}
