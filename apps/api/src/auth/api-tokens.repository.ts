import { Injectable } from '@nestjs/common';
import { PrismaService } from '../persistence/prisma.service.js';

export interface NewApiToken {
  userId: string;
  workspaceId: string | null;
  name: string;
  prefix: string;
  tokenHash: string;
  expiresAt: Date | null;
}

export interface ApiTokenRow {
  id: string;
  name: string;
  prefix: string;
  workspaceId: string | null;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
}

export interface ActiveApiToken {
  id: string;
  tokenHash: string;
  workspaceId: string | null;
  lastUsedAt: Date | null;
  user: { id: string; email: string; displayName: string; isAdmin: boolean };
}

const ROW = {
  id: true,
  name: true,
  prefix: true,
  workspaceId: true,
  lastUsedAt: true,
  expiresAt: true,
  createdAt: true,
} as const;

@Injectable()
export class ApiTokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(token: NewApiToken): Promise<ApiTokenRow> {
    return this.prisma.apiToken.create({ data: token, select: ROW });
  }

  /** The caller's tokens that are not revoked, newest first (expired ones too, so they can be cleaned up). */
  async listOf(userId: string, onlyWorkspaceId?: string | null): Promise<ApiTokenRow[]> {
    return this.prisma.apiToken.findMany({
      where: { userId, revokedAt: null, ...(onlyWorkspaceId ? { workspaceId: onlyWorkspaceId } : {}) },
      orderBy: { createdAt: 'desc' },
      select: ROW,
    });
  }

  /** Revokes one of the user's tokens (limited to `onlyWorkspaceId`'s when given); false when there is no such live token. */
  async revoke(userId: string, id: string, now: Date, onlyWorkspaceId?: string | null): Promise<boolean> {
    const result = await this.prisma.apiToken.updateMany({
      where: { id, userId, revokedAt: null, ...(onlyWorkspaceId ? { workspaceId: onlyWorkspaceId } : {}) },
      data: { revokedAt: now },
    });
    return result.count > 0;
  }

  /** The token with this digest when it is live and its user is not disabled. */
  async findActive(tokenHash: string, now: Date): Promise<ActiveApiToken | null> {
    return this.prisma.apiToken.findFirst({
      where: {
        tokenHash,
        revokedAt: null,
        OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
        user: { disabledAt: null },
      },
      select: {
        id: true,
        tokenHash: true,
        workspaceId: true,
        lastUsedAt: true,
        user: { select: { id: true, email: true, displayName: true, isAdmin: true } },
      },
    });
  }

  /** Records use at most once per `intervalMs` (a conditional update, so busy tokens do not write on every call). */
  async touch(id: string, now: Date, intervalMs: number): Promise<void> {
    await this.prisma.apiToken.updateMany({
      where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - intervalMs) } }] },
      data: { lastUsedAt: now },
    });
  }
}
