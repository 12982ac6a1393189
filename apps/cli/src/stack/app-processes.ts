import path from 'node:path';
import { childEnv, ManagedProcess, repoRoot, waitForHttp } from '@lazyboy/localstack';
import { logFile, type StackLayout } from './stack-layout.js';
import type { StackSecrets } from './stack-secrets.js';
import type { StackPorts } from './stack-state.js';

export interface AppProcessContext {
  layout: StackLayout;
  ports: StackPorts;
  secrets: StackSecrets;
  databaseUrl: string;
  redisUrl: string;
  webHost: string;
  adminEmail: string;
  /** LAZYBOY_PUBLIC_URL for the API (links in mails): the caller's, else the printed URL; unset for a wildcard host. */
  publicUrl: string | undefined;
}

/** Set for every app process. */
const PRODUCTION = { NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' };

/** One of the stack's Node programs, run from its build in apps/<name>/dist. */
function startNodeApp(ctx: AppProcessContext, name: 'api', env: Record<string, string>): ManagedProcess {
  return new ManagedProcess({
    name,
    command: process.execPath,
    args: [path.join(repoRoot, `apps/${name}/dist/main.js`)],
    cwd: repoRoot,
    env: childEnv(name, { ...PRODUCTION, ...env }),
    logFile: logFile(ctx.layout, name),
  });
}

/**
 * Starts the API and resolves once it serves HTTP (readiness of its dependencies is checked apart). The API
 * starts the computers' workers itself (the local pool driver), one per computer, and stops them when it
 * stops; their homes go under the data directory.
 */
export function startApi(ctx: AppProcessContext): Promise<ManagedProcess> {
  return answering(
    ctx,
    `http://127.0.0.1:${ctx.ports.api}/healthz`,
    startNodeApp(ctx, 'api', {
      DATABASE_URL: ctx.databaseUrl,
      REDIS_URL: ctx.redisUrl,
      LAZYBOY_API_HOST: '127.0.0.1',
      LAZYBOY_API_PORT: String(ctx.ports.api),
      LAZYBOY_APP_TOKEN: ctx.secrets.appToken,
      LAZYBOY_ADMIN_EMAIL: ctx.adminEmail,
      LAZYBOY_VAULT_KEY: ctx.secrets.vaultKey,
      LAZYBOY_VAULT_OLD_KEYS: ctx.secrets.oldVaultKeys.join(','),
      LAZYBOY_INTERNAL_SECRET: ctx.secrets.internalSecret,
      LAZYBOY_HOMES_DIR: ctx.layout.homesDir,
      LAZYBOY_LOGS_DIR: ctx.layout.logsDir,
      // Only the web server stands in front of this API, and it proves itself with a signed header: a
      // proxy list meant for the web server would let every local process name its own address here.
      LAZYBOY_TRUSTED_PROXIES: '',
      // LAZYBOY_SMTP_URL and LAZYBOY_MAIL_FROM come from the caller's environment (checked by `up`).
      ...(ctx.publicUrl !== undefined ? { LAZYBOY_PUBLIC_URL: ctx.publicUrl } : {}),
    }),
  );
}

export function startWeb(ctx: AppProcessContext): Promise<ManagedProcess> {
  const webDir = path.join(repoRoot, 'apps/web');
  const web = new ManagedProcess({
    name: 'web',
    command: process.execPath,
    // The custom server: Next.js plus the one-origin proxy to the API and its websockets.
    args: [path.join(webDir, 'dist/server/main.js')],
    cwd: webDir,
    env: childEnv('web', {
      ...PRODUCTION,
      LAZYBOY_API_URL: `http://127.0.0.1:${ctx.ports.api}`,
      LAZYBOY_WEB_HOST: ctx.webHost,
      LAZYBOY_WEB_PORT: String(ctx.ports.web),
      LAZYBOY_INTERNAL_SECRET: ctx.secrets.internalSecret,
      // LAZYBOY_TRUSTED_PROXIES comes from the caller's environment (checked by `up`): a reverse proxy in front.
    }),
    logFile: logFile(ctx.layout, 'web'),
  });
  return answering(ctx, `http://${urlHost(ctx.webHost)}:${ctx.ports.web}/healthz`, web);
}

/**
 * The web app's origin as `up` prints it. A wildcard bind has none others can use (the printed 127.0.0.1
 * reaches only this machine), so mail needs LAZYBOY_PUBLIC_URL then.
 */
export function defaultPublicUrl(host: string, webPort: number): string | undefined {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return undefined;
  return `http://${urlHost(host)}:${webPort}`;
}

/** `[::1]` for IPv6 literals in URLs. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Resolves with `proc` once `url` answers 200; otherwise stops it and fails. */
async function answering(ctx: AppProcessContext, url: string, proc: ManagedProcess): Promise<ManagedProcess> {
  try {
    await waitForHttp(proc, url, logFile(ctx.layout, proc.name));
    return proc;
  } catch (error) {
    await proc.stop();
    throw error;
  }
}
