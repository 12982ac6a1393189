import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { AccountsRepository } from './accounts.repository.js';
import { hashPassword } from './password-hasher.js';

const RETRY_MS = 2_000;

/**
 * On an empty database, LAZYBOY_APP_TOKEN becomes the password of the first admin (LAZYBOY_ADMIN_EMAIL),
 * who owns a first workspace. Once any user exists this does nothing, so changing the token later does
 * not change anyone's password. The API starts even while Postgres is down (/readyz says so); the
 * bootstrap retries until the database answers.
 */
@Injectable()
export class FirstAdminService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FirstAdminService.name);
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly accounts: AccountsRepository,
  ) {}

  /** Start-up waits for one attempt (quick either way); retries, if any, run in the background. */
  async onApplicationBootstrap(): Promise<void> {
    await this.attempt();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  private async attempt(): Promise<void> {
    try {
      await this.ensureFirstAdmin();
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn(`first-admin bootstrap postponed: ${(error as Error).message.split('\n').at(-1)?.trim()}`);
      this.retryTimer = setTimeout(() => void this.attempt(), RETRY_MS);
    }
  }

  async ensureFirstAdmin(): Promise<void> {
    if ((await this.accounts.countUsers()) > 0) return;
    const token = this.config.LAZYBOY_APP_TOKEN;
    if (!token) {
      this.logger.warn('no users yet and LAZYBOY_APP_TOKEN is unset: nobody can sign in until it is set');
      return;
    }
    try {
      await this.accounts.createWithWorkspace({
        email: this.config.LAZYBOY_ADMIN_EMAIL,
        displayName: 'Admin',
        passwordHash: await hashPassword(token),
        workspaceName: 'Home',
        workspaceSlug: 'home',
        isAdmin: true,
        auditAction: 'admin.bootstrap',
      });
    } catch (error) {
      // Another API replica created the first admin (and its `home` workspace) at the same time.
      if (isUniqueViolation(error)) return;
      throw error;
    }
    this.logger.log(`created the first admin ${this.config.LAZYBOY_ADMIN_EMAIL}`);
  }
}
