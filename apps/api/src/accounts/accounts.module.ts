import { Module } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository.js';
import { FirstAdminService } from './first-admin.service.js';

@Module({ providers: [AccountsRepository, FirstAdminService], exports: [AccountsRepository] })
export class AccountsModule {}
