import { Injectable } from '@nestjs/common';
import type { MembershipRole } from '@lazyboy/contracts';
import { PrismaService } from '../persistence/prisma.service.js';

@Injectable()
export class TenancyRepository {
  constructor(private readonly prisma: PrismaService) {}

  async roleOf(userId: string, workspaceId: string): Promise<MembershipRole | null> {
    const membership = await this.prisma.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId } },
      select: { role: true },
    });
    return membership?.role ?? null;
  }
}
