import { Injectable } from '@nestjs/common';
import { PrismaService } from '../persistence/prisma.service.js';

@Injectable()
export class HealthRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** One round trip to Postgres. */
  async ping(): Promise<void> {
    await this.prisma.$queryRaw`SELECT 1`;
  }
}
