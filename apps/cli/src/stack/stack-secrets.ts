import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const secretsSchema = z.object({
  appToken: z.string().min(32),
  postgresPassword: z.string().min(16),
  redisPassword: z.string().min(16),
  vaultKey: z.string().min(32),
  /** Shared by the API and the web server (LAZYBOY_INTERNAL_SECRET). */
  internalSecret: z.string().min(32),
});
export type StackSecrets = z.infer<typeof secretsSchema>;

/** The vault key and internal secret came after the first releases: a file without them gets them on the next start. */
const storedSchema = secretsSchema.partial({ vaultKey: true, internalSecret: true });

const newKey = (): string => randomBytes(32).toString('base64url');

const fresh = (): StackSecrets => ({
  appToken: randomBytes(24).toString('base64url'),
  postgresPassword: randomBytes(18).toString('base64url'),
  redisPassword: randomBytes(18).toString('base64url'),
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
    ? { ...stored, vaultKey: stored.vaultKey ?? newKey(), internalSecret: stored.internalSecret ?? newKey() }
    : fresh();
  if (!stored?.vaultKey || !stored.internalSecret) writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  const override = env.LAZYBOY_APP_TOKEN;
  return override ? { ...secrets, appToken: override } : secrets;
}
