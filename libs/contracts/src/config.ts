import { z } from 'zod';
import { environmentModelScopeSchema } from './api/admin.js';
import { signupPolicySchema } from './domain.js';
import { allowedDomainsEnv, privateNetworksEnv, type EgressPolicy } from './network.js';

// Environment variables are external input: each process parses its own with one of these schemas at
// start-up and refuses to start with a message naming the variable. The README's configuration table
// lists the same variables (a test keeps it complete).

const port = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback);
const boolFlag = z
  .string()
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
}

/** A bind address that exposes a server beyond this machine needs a token an attacker cannot guess. */
export const MIN_EXPOSED_TOKEN_LENGTH = 32;

/**
 * LAZYBOY_VAULT_OLD_KEYS: earlier vault keys, comma-separated, still accepted for opening secrets (never for
 * sealing new ones) while a key rotation re-seals everything under LAZYBOY_VAULT_KEY. A key cannot hold a comma.
 */
export const vaultOldKeysSchema = z
  .string()
  .optional()
  .transform((text, ctx): string[] => {
    const keys = (text ?? '')
      .split(',')
      .map((key) => key.trim())
      .filter(Boolean);
    if (keys.some((key) => key.length < MIN_EXPOSED_TOKEN_LENGTH)) {
      ctx.addIssue({ code: 'custom', message: `every old key is at least ${MIN_EXPOSED_TOKEN_LENGTH} characters` });
      return z.NEVER;
    }
    return keys;
  })
  .describe('Earlier vault keys, comma-separated, still accepted for reading during a key rotation');

export const adminEmailSchema = z
  .string()
  .email()
  .default('admin@lazyboy.local')
  .transform((s) => s.toLowerCase())
  .describe('Sign-in email of the first admin');

const teamScreenLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(32)
  .default(8)
  .describe('Most screens (agents) one computer runs at once');

/** The header that carries LAZYBOY_INTERNAL_SECRET on the web server's calls to the API's internal routes. */
export const INTERNAL_SECRET_HEADER = 'x-lazyboy-internal';

/** Shared by the API and the web server: the web server's calls to the API's internal routes carry it. */
const internalSecret = z
  .string()
  .min(MIN_EXPOSED_TOKEN_LENGTH)
  .describe(
    "Shared by the API and the web server: authenticates the web server's internal calls (viewer tickets, control checks)",
  );

/** One entry of LAZYBOY_TRUSTED_PROXIES: an address (a /32 or /128) or a CIDR block. */
export interface TrustedProxyRange {
  network: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

function trustedProxyRange(entry: string): TrustedProxyRange | null {
  if (z.ipv4().safeParse(entry).success) return { network: entry, prefix: 32, family: 'ipv4' };
  if (z.ipv6().safeParse(entry).success) return { network: entry, prefix: 128, family: 'ipv6' };
  const [network = '', prefix = ''] = entry.split('/');
  if (z.cidrv4().safeParse(entry).success) return { network, prefix: Number(prefix), family: 'ipv4' };
  if (z.cidrv6().safeParse(entry).success) return { network, prefix: Number(prefix), family: 'ipv6' };
  return null;
}

/**
 * Shared by the API and the web server: the reverse proxies in front of it. Only a caller in this list may
 * name the client in X-Forwarded-For (and, for the web server, the host in X-Forwarded-Host); anyone else is
 * counted by their own address, so nobody picks the address the rate limits count.
 */
export const trustedProxiesSchema = z
  .string()
  .default('')
  .transform((value, ctx): TrustedProxyRange[] => {
    const ranges: TrustedProxyRange[] = [];
    for (const entry of value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')) {
      const range = trustedProxyRange(entry);
      if (!range) {
        ctx.addIssue({ code: 'custom', message: `"${entry.slice(0, 60)}" is not an IP address or CIDR block` });
        return z.NEVER;
      }
      ranges.push(range);
    }
    return ranges;
  })
  .describe('Comma-separated IPs and CIDR blocks of the reverse proxies in front (default none): only they may name the client');

/** Where mail goes and as whom: LAZYBOY_SMTP_URL, read. The password is a secret: never log or show it. */
export interface SmtpSettings {
  /** smtps://: TLS from the first byte; smtp://: STARTTLS when the server offers it. */
  secure: boolean;
  host: string;
  port: number;
  user?: string;
  password?: string;
}

/** An unset variable and an empty one are the same: nothing configured. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

// Messages name what is wrong, never the value: the URL may hold the password.
const smtpUrlSchema = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .optional()
    .transform((value, ctx): SmtpSettings | undefined => {
      if (value === undefined) return undefined;
      const refuse = (message: string) => {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      };
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return refuse('is not a URL: smtp://[user:password@]host[:port] or smtps://…');
      }
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return refuse('must start with smtp:// or smtps://');
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (host === '') return refuse('names no host');
      if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') {
        return refuse('takes no path, query or fragment: smtp://[user:password@]host[:port]');
      }
      const secure = url.protocol === 'smtps:';
      const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
      if (port === 0) return refuse('port 0 is no SMTP server');
      let user: string | undefined;
      let password: string | undefined;
      try {
        user = url.username === '' ? undefined : decodeURIComponent(url.username);
        password = url.password === '' ? undefined : decodeURIComponent(url.password);
      } catch {
        return refuse('has a user or password that is not percent-encoded right');
      }
      if (password !== undefined && user === undefined) return refuse('has a password without a user');
      return { secure, host, port, ...(user !== undefined ? { user } : {}), ...(password !== undefined ? { password } : {}) };
    }),
);

/**
 * The web app's origin as people reach it (http or https, no path): links in mails start with it.
 * Normalised to the origin, so a trailing slash does not double.
 */
export const publicUrlSchema = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .optional()
    .transform((value, ctx): string | undefined => {
      if (value === undefined) return undefined;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not a URL: https://lazyboy.example.com' });
        return z.NEVER;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        ctx.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL' });
        return z.NEVER;
      }
      if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
        ctx.addIssue({ code: 'custom', message: 'must be an origin only: no credentials, path, query or fragment' });
        return z.NEVER;
      }
      return url.origin;
    }),
);

/** The API's optional mail transport (invitation links by mail); `lazyboy up` checks the same before it starts anything. */
export const mailEnvShape = {
  LAZYBOY_SMTP_URL: smtpUrlSchema.describe(
    'smtp://[user:password@]host[:port] (STARTTLS when offered) or smtps://… (TLS): invitation links are mailed through it',
  ),
  LAZYBOY_MAIL_FROM: z
    .preprocess(unsetIfEmpty, z.email().optional())
    .describe('The address mails come from; required with LAZYBOY_SMTP_URL'),
  LAZYBOY_PUBLIC_URL: publicUrlSchema.describe(
    "The web app's origin as people reach it, for links in mails; required with LAZYBOY_SMTP_URL",
  ),
};

/** A mail transport needs a sender and the origin its links point at. */
export function checkMailEnv(
  env: {
    LAZYBOY_SMTP_URL?: SmtpSettings | undefined;
    LAZYBOY_MAIL_FROM?: string | undefined;
    LAZYBOY_PUBLIC_URL?: string | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (env.LAZYBOY_SMTP_URL === undefined) return;
  for (const name of ['LAZYBOY_MAIL_FROM', 'LAZYBOY_PUBLIC_URL'] as const) {
    if (env[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'required when LAZYBOY_SMTP_URL is set' });
  }
}

export const mailEnvSchema = z.object(mailEnvShape).superRefine(checkMailEnv);

const seconds = (fallback: number, min = 1) => z.coerce.number().int().min(min).max(31_536_000).default(fallback);

/** One entry of LAZYBOY_STATIC_WORKERS: where pool-mode workers listen (a name may stand for several). */
export interface StaticWorkerEntry {
  /** A DNS name (a compose service's, resolving to every replica) or an IP address (IPv6 without brackets). */
  host: string;
  port: number;
}

/** A DNS name as Docker's resolver answers them (labels of letters, digits, `-` and `_`: compose names). */
const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*$/;
const STATIC_WORKERS_MAX = 256;

/** `host:port` or `[ipv6]:port`, or what is wrong with the entry. */
function staticWorkerEntry(entry: string): StaticWorkerEntry | string {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(entry);
  if (!match) return 'is not host:port (e.g. worker:3102, or [fd00::2]:3102 for an IPv6 address)';
  const [, ipv6, name = '', digits = ''] = match;
  const port = Number(digits);
  if (port < 1 || port > 65_535) return 'has a port outside 1-65535';
  if (ipv6 !== undefined) {
    return z.ipv6().safeParse(ipv6).success ? { host: ipv6, port } : 'has no IPv6 address between its brackets';
  }
  if (z.ipv4().safeParse(name).success) return { host: name, port };
  // A dotted quad that is no address (999.1.1.1) would otherwise pass as a name.
  if (/^[\d.]+$/.test(name) || !DNS_NAME.test(name)) return 'has a host that is neither a DNS name nor an IP address';
  return { host: name.toLowerCase(), port };
}

/**
 * LAZYBOY_STATIC_WORKERS: comma-separated `host:port` entries of pool-mode workers. Read strictly (a typo
 * would otherwise show up only as "no worker answers" when the first computer boots); duplicates are
 * refused. Messages name the entry (an address, never a secret).
 */
export const staticWorkersSchema = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .optional()
    .transform((value, ctx): StaticWorkerEntry[] | undefined => {
      if (value === undefined) return undefined;
      const entries: StaticWorkerEntry[] = [];
      const seen = new Set<string>();
      for (const raw of value.split(',').map((part) => part.trim())) {
        const refuse = (message: string) => {
          ctx.addIssue({ code: 'custom', message: `"${raw.slice(0, 80)}" ${message}` });
          return z.NEVER;
        };
        if (raw === '') return refuse('is empty: list host:port entries separated by commas');
        const entry = staticWorkerEntry(raw);
        if (typeof entry === 'string') return refuse(entry);
        const key = `${entry.host}:${entry.port}`;
        if (seen.has(key)) return refuse('is listed twice');
        seen.add(key);
        entries.push(entry);
      }
      if (entries.length > STATIC_WORKERS_MAX) {
        ctx.addIssue({ code: 'custom', message: `lists ${entries.length} entries; at most ${STATIC_WORKERS_MAX}` });
        return z.NEVER;
      }
      return entries;
    }),
);

/** The `kubernetes` pool driver's settings (the chart sets them); unused by the local driver. */
const kubernetesEnvShape = {
  LAZYBOY_K8S_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/)
    .default('default')
    .describe('Kubernetes: the namespace of the worker pods, their volumes and Leases'),
  LAZYBOY_K8S_WORKER_IMAGE: z.string().min(1).optional().describe('Kubernetes: the worker image (deploy/images/build.sh worker)'),
  LAZYBOY_K8S_IMAGE_PULL_POLICY: z
    .enum(['Always', 'IfNotPresent', 'Never'])
    .default('IfNotPresent')
    .describe("Kubernetes: the worker pods' imagePullPolicy (Never for images loaded into the nodes)"),
  LAZYBOY_K8S_WARM_PODS: z.coerce
    .number()
    .int()
    .min(0)
    .max(50)
    .default(1)
    .describe('Kubernetes: how many ready worker pods wait unassigned, for computers without a home yet'),
  LAZYBOY_K8S_HOME_SIZE: z
    .string()
    .regex(/^\d+(Mi|Gi|Ti)$/)
    .default('10Gi')
    .describe("Kubernetes: the size of each computer's home volume (a PersistentVolumeClaim)"),
  LAZYBOY_K8S_STORAGE_CLASS: z
    .string()
    .min(1)
    .optional()
    .describe("Kubernetes: the StorageClass of the home volumes (default: the cluster's default class)"),
  LAZYBOY_K8S_REPLICA_ID: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe("Kubernetes: this API replica's name as a Lease holder (the chart passes the pod's name; default the host name)"),
  LAZYBOY_K8S_POOL_SECRET: z
    .string()
    .min(1)
    .default('lazyboy-pool')
    .describe('Kubernetes: the Secret whose `pool-token` key the warm worker pods get as LAZYBOY_POOL_TOKEN'),
  LAZYBOY_POOL_TOKEN: z
    .string()
    .min(MIN_EXPOSED_TOKEN_LENGTH)
    .optional()
    .describe(
      "Kubernetes and static: the pool's shared token (the workers have the same), which assigns a warm worker to a computer",
    ),
  LAZYBOY_COMPUTER_CPUS: z.coerce
    .number()
    .positive()
    .max(64)
    .default(2)
    .describe("Kubernetes: a computer's CPU limit (its request is a quarter of it)"),
  LAZYBOY_COMPUTER_MEMORY_MB: z.coerce
    .number()
    .int()
    .min(512)
    .max(262_144)
    .default(4096)
    .describe("Kubernetes: a computer's memory limit in MiB (its request is half of it)"),
};

export const apiEnvSchema = z
  .object({
    DATABASE_URL: z.string().url().describe('Postgres connection URL (the local stack sets it)'),
    REDIS_URL: z.string().url().describe('Redis connection URL (the local stack sets it)'),
    LAZYBOY_API_HOST: z.string().min(1).default('127.0.0.1').describe('Address the API binds'),
    LAZYBOY_API_PORT: port(3100).describe('Port the API listens on'),
    LAZYBOY_APP_TOKEN: z
      .string()
      .optional()
      .describe('Password of the first admin, created on first start; at least 32 characters off loopback'),
    LAZYBOY_ADMIN_EMAIL: adminEmailSchema,
    LAZYBOY_LOG_LEVEL: z
      .enum(['error', 'warn', 'log', 'debug', 'verbose'])
      .default('log')
      .describe('Least severe log level printed'),
    LAZYBOY_VAULT_KEY: z
      .string()
      .min(MIN_EXPOSED_TOKEN_LENGTH)
      .describe('Master key for secrets at rest (saved logins, model keys, computer tokens) and viewer tickets; keep it'),
    LAZYBOY_VAULT_OLD_KEYS: vaultOldKeysSchema,
    LAZYBOY_INTERNAL_SECRET: internalSecret,
    LAZYBOY_SECURE_COOKIE: boolFlag.describe('true marks the session cookie Secure (serve the web app over HTTPS)'),
    LAZYBOY_SESSION_TTL_HOURS: z.coerce.number().int().min(1).max(8_760).default(720).describe('How long a sign-in lasts'),
    LAZYBOY_LOGIN_ATTEMPTS: z.coerce
      .number()
      .int()
      .min(1)
      .default(10)
      .describe('Failed sign-ins allowed per email and address in 15 minutes before 429'),
    LAZYBOY_ACCOUNT_LOGIN_FAILURES: z.coerce
      .number()
      .int()
      .min(1)
      .default(10)
      .describe("Failed sign-ins to one account (from anywhere but the account's known devices) before each further one waits"),
    LAZYBOY_ACCOUNT_COOLDOWN_SECONDS: seconds(30).describe(
      "An account's first wait after its failures ran out; each further failure doubles it",
    ),
    LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS: seconds(900).describe('The longest wait between sign-ins to one account'),
    LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS: seconds(3_600).describe(
      "An account's failed sign-ins are forgotten this long after the last one",
    ),
    LAZYBOY_TRUSTED_PROXIES: trustedProxiesSchema,
    LAZYBOY_SIGNUPS_PER_HOUR: z.coerce
      .number()
      .int()
      .min(1)
      .default(20)
      .describe('Sign-ups allowed per address in an hour before 429'),
    // Its own allowance, larger: a team behind one address reloads its links far more often than it signs up.
    LAZYBOY_INVITATION_LOOKUPS_PER_HOUR: z.coerce
      .number()
      .int()
      .min(1)
      .default(200)
      .describe('Look-ups of invitation links allowed per address in an hour before 429'),
    LAZYBOY_SIGNUP: signupPolicySchema
      .default('invite')
      .describe(
        'Who may sign up: invite (through an invitation link), open (anyone) or closed; an instance admin may change it later',
      ),
    LAZYBOY_RUNNER: z
      .string()
      .optional()
      .transform((v) => v !== 'false' && v !== '0')
      .describe('false: this API replica executes no runs (serves HTTP and websockets only)'),
    LAZYBOY_RUN_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16).describe('Runs one executor drives at once'),
    LAZYBOY_RUN_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(300_000)
      .describe('A run lease expires this long after its last renewal (another executor may then take it over)'),
    LAZYBOY_PARKED_RUN_HOURS: z.coerce
      .number()
      .positive()
      .max(24 * 90)
      .default(24)
      .describe(
        'A run waiting for an answer or for a person to hand the screen back ends as blocked after this many hours (it holds its agent meanwhile)',
      ),
    LAZYBOY_POOL_DRIVER: z
      .enum(['local', 'kubernetes', 'static'])
      .default('local')
      .describe('Where computers run: local processes, pods, or a fixed set of warm pool-mode workers (docker compose)'),
    LAZYBOY_STATIC_WORKERS: staticWorkersSchema.describe(
      'Static pool driver: comma-separated host:port of the pool-mode workers; a name stands for every address it resolves to',
    ),
    LAZYBOY_HOMES_DIR: z.string().min(1).default('./data/homes').describe("Computers' home directories (local pool driver)"),
    LAZYBOY_LOGS_DIR: z
      .string()
      .min(1)
      .optional()
      .describe("Where the local pool driver writes its workers' logs (default: logs beside LAZYBOY_HOMES_DIR)"),
    LAZYBOY_COMPUTER_SUSPEND_AFTER_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(600_000)
      .describe('A running computer nobody watches and no run uses is suspended after this'),
    LAZYBOY_COMPUTER_STOP_AFTER_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(21_600_000)
      .describe('A computer suspended this long is stopped'),
    LAZYBOY_IDLE_CHECK_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(30_000)
      .describe('How often the idle loop looks at computers'),
    LAZYBOY_COMPUTER_BIND_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(30_000)
      .describe(
        "A computer's binding (the API process responsible for its worker) lasts this long unless renewed (every third of it); then another replica may take the worker over",
      ),
    LAZYBOY_CONTROL_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(900_000)
      .describe("A person's takeover lasts this long unless renewed by the viewer heartbeat"),
    TEAM_SCREEN_LIMIT: teamScreenLimit,
    LAZYBOY_ALLOW_LOCAL_MODEL_SERVERS: boolFlag.describe(
      "true: agents' and workspaces' model settings may name loopback, private-network (LAN) and cluster-internal servers until an instance admin decides otherwise",
    ),
    LAZYBOY_ENVIRONMENT_MODEL_SCOPE: environmentModelScopeSchema
      .default('first_workspace')
      .describe(
        "Which workspaces the host's model variables (and keys) serve until an instance admin decides: first_workspace or all_workspaces",
      ),
    LAZYBOY_MODEL_BLOCKED_NETWORKS: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((entry) => entry.trim())
          .filter((entry) => entry !== ''),
      )
      .describe("Networks (address/prefix, comma-separated) agents' model servers may never be in: the cluster's own ranges"),
    LAZYBOY_DISPLAY_BASE_FROM: z.coerce
      .number()
      .int()
      .min(0)
      .max(59_000)
      .default(0)
      .describe('Local pool driver: the lowest X display base it gives a computer (each takes TEAM_SCREEN_LIMIT displays)'),
    LAZYBOY_EGRESS_PRIVATE_NETWORKS: privateNetworksEnv,
    LAZYBOY_EGRESS_ALLOWED_DOMAINS: allowedDomainsEnv,
    ...mailEnvShape,
    ...kubernetesEnvShape,
  })
  .superRefine((env, ctx) => {
    checkMailEnv(env, ctx);
    if (env.LAZYBOY_POOL_DRIVER === 'kubernetes') {
      for (const name of ['LAZYBOY_K8S_WORKER_IMAGE', 'LAZYBOY_POOL_TOKEN'] as const) {
        if (!env[name])
          ctx.addIssue({ code: 'custom', path: [name], message: 'is required with LAZYBOY_POOL_DRIVER=kubernetes' });
      }
    }
    if (env.LAZYBOY_POOL_DRIVER === 'static') {
      for (const name of ['LAZYBOY_STATIC_WORKERS', 'LAZYBOY_POOL_TOKEN'] as const) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'is required with LAZYBOY_POOL_DRIVER=static' });
      }
    }
    if (env.LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS < env.LAZYBOY_ACCOUNT_COOLDOWN_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS'],
        message: 'must be at least LAZYBOY_ACCOUNT_COOLDOWN_SECONDS',
      });
    }
    // Failures forgotten during a wait would restart the escalation for whoever waits it out.
    if (env.LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS <= env.LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['LAZYBOY_ACCOUNT_FAILURE_WINDOW_SECONDS'],
        message: 'must be longer than LAZYBOY_ACCOUNT_COOLDOWN_MAX_SECONDS',
      });
    }
    if (!isLoopbackHost(env.LAZYBOY_API_HOST) && (env.LAZYBOY_APP_TOKEN ?? '').length < MIN_EXPOSED_TOKEN_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        path: ['LAZYBOY_APP_TOKEN'],
        message: `must be at least ${MIN_EXPOSED_TOKEN_LENGTH} characters when the API binds ${env.LAZYBOY_API_HOST}`,
      });
    }
  });
export type ApiEnv = z.infer<typeof apiEnvSchema>;

export const workerEnvSchema = z.object({
  LAZYBOY_WORKER_HOST: z.string().min(1).default('127.0.0.1').describe('Address the worker control API binds'),
  LAZYBOY_WORKER_PORT: port(3102).describe('Port of the worker control API'),
  LAZYBOY_CONTROL_TOKEN: z
    .string()
    .min(MIN_EXPOSED_TOKEN_LENGTH)
    .describe('Bearer token every control call must carry (one per computer)'),
  LAZYBOY_COMPUTER_ID: z.string().min(1).default('local').describe('Id of the computer this worker serves'),
  TEAM_SCREEN_LIMIT: teamScreenLimit,
  LAZYBOY_DISPLAY_BASE: z.coerce
    .number()
    .int()
    .min(0)
    .max(59_000)
    .default(0)
    .describe('Slot N runs on X display :(base + N + 1); several workers on one host need bases far enough apart'),
  LAZYBOY_DESKTOP_SESSION: z
    .enum(['window-manager', 'xfce'])
    .default('window-manager')
    .describe('window-manager: xfwm4 alone (fastest); xfce: the full XFCE session'),
  LAZYBOY_COMPUTER_HOME: z
    .string()
    .min(1)
    .optional()
    .describe("The computer's home directory, kept across stops (default ./data/homes/<computer id>)"),
  LAZYBOY_EGRESS_PRIVATE_NETWORKS: privateNetworksEnv,
  LAZYBOY_EGRESS_ALLOWED_DOMAINS: allowedDomainsEnv,
  LAZYBOY_SHELL_BOUNDARY: z
    .enum(['bubblewrap', 'container'])
    .default('bubblewrap')
    .describe(
      "bubblewrap: each shell command in a sandbox of its own; container: the worker's container (a pod holding this computer alone) is the boundary",
    ),
});
export type WorkerEnv = z.infer<typeof workerEnvSchema>;

/** Which kind of worker a process is: one computer's from the start, or a warm pool worker assigned later. */
export const workerModeEnvSchema = z.object({
  LAZYBOY_WORKER_MODE: z
    .enum(['computer', 'pool'])
    .default('computer')
    .describe('computer: serves LAZYBOY_COMPUTER_ID from the start; pool: a warm worker the API assigns later'),
});

/**
 * A warm pool worker (a cluster's ready pod): no computer and no control token of its own until the API
 * assigns it one; the pool token, shared by the pool, opens only that assignment.
 */
export const poolWorkerEnvSchema = workerEnvSchema
  .omit({ LAZYBOY_CONTROL_TOKEN: true, LAZYBOY_COMPUTER_ID: true })
  .extend({
    LAZYBOY_POOL_TOKEN: z
      .string()
      .min(MIN_EXPOSED_TOKEN_LENGTH)
      .describe("The pool's shared secret; it opens only the assignment, which hands the worker its own control token"),
    LAZYBOY_HOMES_DIR: z
      .preprocess(
        unsetIfEmpty,
        z
          .string()
          .startsWith('/', 'must be an absolute path')
          .refine((dir) => !dir.split('/').includes('..'), 'must not climb out with ..')
          .optional(),
      )
      .describe(
        "Static pool: the directory (a volume shared by the workers) holding every computer's home; an assignment's home key names its home in it",
      ),
  })
  .superRefine((env, ctx) => {
    // Every computer's home is mounted into every worker of a static pool: only each command's own sandbox
    // (bubblewrap hides the homes' directory but for the computer's own home) keeps one computer out of another's.
    if (env.LAZYBOY_HOMES_DIR !== undefined && env.LAZYBOY_SHELL_BOUNDARY === 'container') {
      ctx.addIssue({
        code: 'custom',
        path: ['LAZYBOY_SHELL_BOUNDARY'],
        message:
          "must be bubblewrap with LAZYBOY_HOMES_DIR: the container holds every computer's home, so it is no boundary between computers",
      });
    }
  });
export type PoolWorkerEnv = z.infer<typeof poolWorkerEnvSchema>;

/** The worker's egress policy, from its environment. */
export function egressPolicyOf(
  env: Pick<WorkerEnv, 'LAZYBOY_EGRESS_PRIVATE_NETWORKS' | 'LAZYBOY_EGRESS_ALLOWED_DOMAINS'>,
): EgressPolicy {
  return { privateNetworks: env.LAZYBOY_EGRESS_PRIVATE_NETWORKS, allowedDomains: env.LAZYBOY_EGRESS_ALLOWED_DOMAINS };
}

export const webEnvSchema = z.object({
  LAZYBOY_API_URL: z.string().url().default('http://127.0.0.1:3100').describe('Where the web server reaches the API'),
  LAZYBOY_WEB_HOST: z.string().min(1).default('127.0.0.1').describe('Address the web server binds'),
  LAZYBOY_WEB_PORT: port(3101).describe('Port the web server listens on'),
  LAZYBOY_INTERNAL_SECRET: internalSecret,
  LAZYBOY_TRUSTED_PROXIES: trustedProxiesSchema,
});
export type WebEnv = z.infer<typeof webEnvSchema>;

/** `lazyboy up`: the embedded local stack. A port of 0 means "pick a free one". */
export const stackEnvSchema = z
  .object({
    LAZYBOY_DATA_DIR: z.string().min(1).default('./data').describe('Postgres and Redis data, logs, secrets, homes'),
    LAZYBOY_STATE_DIR: z
      .string()
      .min(1)
      .default('/var/lib/lazyboy')
      .describe(
        "As root with a private data directory (under /root, or any 0700 one): where Postgres, Redis and the computers' homes go instead",
      ),
    LAZYBOY_APP_TOKEN: z
      .string()
      .optional()
      .describe('Password of the first admin (generated and kept in the data directory when unset)'),
    LAZYBOY_HOST: z.string().min(1).default('127.0.0.1').describe('Address the web app binds (API and worker stay on loopback)'),
    LAZYBOY_WEB_PORT: port(3101).describe('Port of the web app (the URL printed by `up`)'),
    LAZYBOY_API_PORT: port(3100).describe('Port the API listens on'),
    LAZYBOY_PG_PORT: port(0).describe('Postgres port; 0 picks a free one on first start and keeps it'),
    LAZYBOY_REDIS_PORT: port(0).describe('Redis port; 0 picks a free one on first start and keeps it'),
    // Checked here so a bad list stops `up` at once; only the web server is given it (see app-processes.ts).
    LAZYBOY_TRUSTED_PROXIES: trustedProxiesSchema,
    // Handed to the API; `up` makes it from LAZYBOY_HOST and the web port when unset (see up.ts).
    LAZYBOY_PUBLIC_URL: publicUrlSchema.describe(
      "The web app's origin as people reach it, for links in mails (default: the printed URL unless LAZYBOY_HOST is a wildcard)",
    ),
  })
  .superRefine((env, ctx) => {
    // The API checks this too, but `up` always binds the API to loopback: the web app is what is exposed.
    const token = env.LAZYBOY_APP_TOKEN ?? '';
    if (token !== '' && token.length < MIN_EXPOSED_TOKEN_LENGTH && !isLoopbackHost(env.LAZYBOY_HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['LAZYBOY_APP_TOKEN'],
        message: `must be at least ${MIN_EXPOSED_TOKEN_LENGTH} characters when the web app binds ${env.LAZYBOY_HOST} (unset it to have one generated)`,
      });
    }
  });
export type StackEnv = z.infer<typeof stackEnvSchema>;

const flag = boolFlag;
const humanAuto = z
  .string()
  .optional()
  .transform((v): 'approve' | 'abort' | undefined =>
    v === 'abort' ? 'abort' : v === '1' || v === 'true' ? 'approve' : undefined,
  );

/**
 * The `lazyboy` CLI's own settings (the model comes from the credential chain in libs/model). The seeds'
 * GROKBOY_* names are accepted as aliases of these LAZYBOY_* ones.
 */
export const cliEnvSchema = z.object({
  LAZYBOY_MAX_ROUNDS: z.coerce.number().int().min(1).default(12).describe('Model rounds per chunk (one progress beat each)'),
  LAZYBOY_MAX_ROUNDS_TOTAL: z.coerce.number().int().min(1).default(48).describe('Absolute ceiling of model rounds per task'),
  LAZYBOY_PROGRESS: z
    .string()
    .optional()
    .transform((v) => v !== '0')
    .describe('0 silences the progress beats on stderr'),
  LAZYBOY_BROWSER_HEADED: flag.describe('1 launches the browser headed (visible)'),
  LAZYBOY_HANDOFF_AUTO: humanAuto.describe('1 resumes browser hand-offs at once, abort aborts them (tests, CI)'),
  LAZYBOY_CONFIRM_AUTO: humanAuto.describe('1 approves confirmations, abort denies them; falls back to LAZYBOY_HANDOFF_AUTO'),
  LAZYBOY_HOME: z.string().min(1).optional().describe('Where sessions and command logs live (default ~/.lazyboy)'),
  LAZYBOY_CHROMIUM: z.string().min(1).default('/usr/bin/chromium').describe("The browser binary (Debian's Chromium)"),
  LAZYBOY_SHELL_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(30_000).describe('Deadline of one shell command'),
  LAZYBOY_BLOCK_UNTIL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe('A command still running after this goes to the background'),
});
export type CliEnv = z.infer<typeof cliEnvSchema>;

/** GROKBOY_X counts as LAZYBOY_X when LAZYBOY_X is unset (the seeds' names). */
export function withSeedAliases(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GROKBOY_') || value === undefined) continue;
    const target = `LAZYBOY_${name.slice('GROKBOY_'.length)}`;
    if (out[target] === undefined || out[target] === '') out[target] = value;
  }
  return out;
}

/** Parses `env` with `schema`, or throws one error listing every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
