import { Injectable } from '@nestjs/common';
import type { InstanceSettings } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';

/** The row's one id (a CHECK in the migration keeps it the only one). */
const ROW = 1;

/** The instance settings row: absent until an instance admin first changes a setting. */
@Injectable()
export class InstanceSettingsRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(): Promise<InstanceSettings | null> {
    return this.prisma.instanceSettings.findUnique({ where: { id: ROW } });
  }

  save(allowLocalModelServers: boolean): Promise<InstanceSettings> {
    return this.prisma.instanceSettings.upsert({
      where: { id: ROW },
      create: { id: ROW, allowLocalModelServers },
      update: { allowLocalModelServers },
    });
  }
}
