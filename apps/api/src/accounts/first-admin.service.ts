import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { AccountsRepository } from './accounts.repository.js';
import { hashPassword } from './password-hasher.js';

/**
 * On an empty database, LAZYBOY_APP_TOKEN becomes the password of the first admin (LAZYBOY_ADMIN_EMAIL),
 * who owns a first workspace. Once any user exists this does nothing, so changing the token later does
 * not change anyone's password.
 */
@Injectable()
export class FirstAdminService implements OnApplicationBootstrap {
  private readonly logger = new Logger(FirstAdminService.name);

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly accounts: AccountsRepository,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if ((await this.accounts.countUsers()) > 0) return;
    const token = this.config.LAZYBOY_APP_TOKEN;
    if (!token) {
      this.logger.warn('no users yet and LAZYBOY_APP_TOKEN is unset: nobody can sign in until it is set');
      return;
    }
    const created = await this.accounts.createFirstAdmin({
      email: this.config.LAZYBOY_ADMIN_EMAIL,
      displayName: 'Admin',
      passwordHash: await hashPassword(token),
      workspaceName: 'Home',
      workspaceSlug: 'home',
    });
    if (created) this.logger.log(`created the first admin ${this.config.LAZYBOY_ADMIN_EMAIL}`);
  }
}
