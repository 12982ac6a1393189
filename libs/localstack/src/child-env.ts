import { apiEnvSchema, MODEL_ENV_VARIABLES, webEnvSchema } from '@lazyboy/contracts';

// What the programs `lazyboy up` (and the test set-up) starts may take from the environment they are started
// from: only these names. Whatever else is exported there — model keys, a vault key, tokens, the shell's own
// secrets — stays out, so a Postgres or a web server that is made to show its environment has nothing to
// give away. Each program gets its own settings from its starter on top.

/** Every program: finding other programs, the language, the time zone (and every LC_* variable). */
const SYSTEM = ['PATH', 'LANG', 'LANGUAGE', 'TZ'];
const LOCALE_PREFIX = 'LC_';
/** Node programs: a home and a temporary directory, and extra CA certificates for outgoing TLS. */
const NODE = ['HOME', 'TMPDIR', 'NODE_EXTRA_CA_CERTS'];

export const CHILD_ENV_ALLOWED = {
  /** The server and initdb: nothing of LazyBoy's. */
  postgres: SYSTEM,
  redis: SYSTEM,
  /** `prisma migrate deploy` (its DATABASE_URL comes from the starter). */
  migrations: [...SYSTEM, ...NODE],
  /**
   * Its own settings, the model variables (the environment is the last link of the credential chain) and
   * what it hands on to the workers it starts (the local pool driver).
   */
  api: [...SYSTEM, ...NODE, ...Object.keys(apiEnvSchema.shape), ...MODEL_ENV_VARIABLES, 'LAZYBOY_DESKTOP_SESSION'],
  /** Its own settings only: no model keys, no vault key. */
  web: [...SYSTEM, ...NODE, ...Object.keys(webEnvSchema.shape)],
} as const satisfies Record<string, readonly string[]>;

export type ChildName = keyof typeof CHILD_ENV_ALLOWED;

/** The environment `child` starts with: the allowed variables of `from`, then `own` on top. */
export function childEnv(
  child: ChildName,
  own: Record<string, string> = {},
  from: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const allowed = new Set<string>(CHILD_ENV_ALLOWED[child]);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && (allowed.has(name) || name.startsWith(LOCALE_PREFIX))) env[name] = value;
  }
  return { ...env, ...own };
}
