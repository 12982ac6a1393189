import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { RunVaults } from './run-vaults.js';
import { VaultController } from './vault.controller.js';
import { VaultRepository } from './vault.repository.js';
import { VaultRevealLimiter } from './vault-reveal-limiter.js';
import { VaultSecrets } from './vault-secrets.js';
import { VaultService } from './vault.service.js';

/**
 * Saved logins. People manage them over VaultController; runs use them through RunVaults (exported for
 * the run executor), which is the one way a password leaves the database: into a worker's form fill.
 * Needs the global TenancyCoreModule, AuditModule and RedisModule.
 */
@Module({
  imports: [AccountsModule],
  controllers: [VaultController],
  providers: [VaultService, VaultRepository, VaultSecrets, VaultRevealLimiter, RunVaults],
  exports: [RunVaults],
})
export class VaultModule {}
