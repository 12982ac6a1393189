import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { PrismaClient } from './generated/client.js';

/**
 * The database connection. Only repositories inject this: nothing else in the API touches Prisma.
 * Prisma runs with its JS query compiler over node-postgres (no native engine on these machines).
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(API_CONFIG) config: ApiConfig) {
    super({
      adapter: new PrismaPg({
        connectionString: config.DATABASE_URL,
        // Fail fast when Postgres is down instead of queueing callers behind a dead pool.
        connectionTimeoutMillis: 2_000,
        max: 10,
      }),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
