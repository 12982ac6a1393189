import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const secretsSchema = z.object({
  appToken: z.string().min(32),
  postgresPassword: z.string().min(16),
  redisPassword: z.string().min(16),
  /** Written by versions whose `up` started a worker itself; the API now makes one token per computer. */
  controlToken: z.string().min(32).optional(),
  /** Added after the first releases: a secrets file without it gets one on the next start. */
  vaultKey: z.string().min(32).optional(),
});
export type StackSecrets = z.infer<typeof secretsSchema> & { vaultKey: string };

const fresh = (): StackSecrets => ({
  appToken: randomBytes(24).toString('base64url'),
  postgresPassword: randomBytes(18).toString('base64url'),
  redisPassword: randomBytes(18).toString('base64url'),
  vaultKey: randomBytes(32).toString('base64url'),
});

/**
 * The stack's generated secrets, made on first start and kept (0600) so that restarts reuse the same
 * database passwords and admin token. LAZYBOY_APP_TOKEN, when set, wins for the admin token.
 */
export function loadOrCreateSecrets(file: string, env: Record<string, string | undefined>): StackSecrets {
  let secrets: StackSecrets;
  const stored = existsSync(file) ? secretsSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : undefined;
  if (stored?.vaultKey) {
    secrets = { ...stored, vaultKey: stored.vaultKey };
  } else {
    secrets = stored ? { ...stored, vaultKey: fresh().vaultKey } : fresh();
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  }
  const override = env.LAZYBOY_APP_TOKEN;
  return override ? { ...secrets, appToken: override } : secrets;
}
