import { Injectable } from '@nestjs/common';
import type { SignupPolicy } from '@lazyboy/contracts';
import type { InstanceSettings } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';

/** The row's one id (a unique index in the migration keeps it the only one). */
const ROW = 1;

/** Settings an instance admin has set; one left out keeps its stored value (or none). */
export interface InstanceSettingsChanges {
  allowLocalModelServers?: boolean;
  signupPolicy?: SignupPolicy;
}

/** The instance settings row: absent until an instance admin first changes a setting; a null column is unset. */
@Injectable()
export class InstanceSettingsRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(): Promise<InstanceSettings | null> {
    return this.prisma.instanceSettings.findUnique({ where: { id: ROW } });
  }

  save(changes: InstanceSettingsChanges): Promise<InstanceSettings> {
    return this.prisma.instanceSettings.upsert({
      where: { id: ROW },
      create: { id: ROW, ...changes },
      update: changes,
    });
  }
}
