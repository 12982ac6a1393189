import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MODEL_ENV_VARIABLES } from '@lazyboy/contracts';
import type { Script } from '@lazyboy/model';
import { ManagedProcess, findFreePort, repoRoot, waitForHttp } from '@lazyboy/localstack';
import type { ApiConfig } from '../../apps/api/src/config/api-config.js';
import type { ProviderOverride } from '../../apps/api/src/testing/test-app.js';
import { TEST_INTERNAL_SECRET } from '../../apps/api/src/testing/test-config.js';
import { ServiceHarness } from '../service/service-harness.js';
import { addSessionCookie, launchChromium } from '../support/browser.js';

const WEB_SERVER = path.join(repoRoot, 'apps/web/dist/server/main.js');
const WEB_BUILD = path.join(repoRoot, 'apps/web/.next/BUILD_ID');

/**
 * The whole product as a person meets it: the API with its executors and workers (real Postgres, Redis,
 * Xvfb and Chromium desktops; only the model is scripted), the web server in its own process as
 * `lazyboy up` starts it, and a real Chromium to click through the pages.
 */
export class WebHarness {
  readonly service = new ServiceHarness();
  private web: ManagedProcess | null = null;
  private browser: Browser | null = null;
  private readonly logs = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-web-'));
  webUrl = '';

  get logFile(): string {
    return path.join(this.logs, 'web.log');
  }

  /**
   * `api`: configuration of the API beyond the test defaults (a sign-up policy, the first admin).
   * `environmentModel: false`: the host names no model (a fresh install), so only settings made in the
   * pages serve the agents. `providers`: the API's providers replaced (the local model servers it finds).
   */
  async start(
    script: Script,
    api: Partial<Record<keyof ApiConfig, string>> = {},
    options: { environmentModel?: boolean; providers?: ProviderOverride[] } = {},
  ): Promise<void> {
    if (!existsSync(WEB_SERVER) || !existsSync(WEB_BUILD))
      throw new Error('the web app is not built: run `npm run build` (./lazyboy test builds it)');
    await this.service.start(script, api, options.providers);
    // The API reads the host's model variables on every use; the next harness sets them again.
    if (options.environmentModel === false) for (const name of MODEL_ENV_VARIABLES) delete process.env[name];
    const port = await findFreePort();
    this.web = new ManagedProcess({
      name: 'web',
      command: process.execPath,
      args: [WEB_SERVER],
      cwd: path.join(repoRoot, 'apps/web'),
      env: {
        ...process.env,
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        LAZYBOY_API_URL: this.service.app.url,
        LAZYBOY_WEB_HOST: '127.0.0.1',
        LAZYBOY_WEB_PORT: String(port),
        LAZYBOY_INTERNAL_SECRET: TEST_INTERNAL_SECRET,
      },
      logFile: this.logFile,
    });
    this.webUrl = `http://127.0.0.1:${port}`;
    await waitForHttp(this.web, new URL('/healthz', this.webUrl).toString(), this.logFile);
    this.browser = await launchChromium();
  }

  /**
   * A fresh browser profile on the web app, in the app's default language unless told; signed out, or
   * signed in with `cookie` (a session cookie from the API, `name=value`).
   */
  async newPage(
    options: { locale?: string; viewport?: { width: number; height: number }; cookie?: string; permissions?: string[] } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    if (!this.browser) throw new Error('start the harness first');
    const context = await this.browser.newContext({
      baseURL: this.webUrl,
      locale: options.locale ?? 'zh-TW',
      viewport: options.viewport ?? { width: 1280, height: 800 },
      ...(options.permissions ? { permissions: options.permissions } : {}),
    });
    if (options.cookie) await addSessionCookie(context, options.cookie, this.webUrl);
    return { context, page: await context.newPage() };
  }

  async stop(): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    await this.web?.stop();
    await this.service.stop();
    rmSync(this.logs, { recursive: true, force: true });
  }
}
