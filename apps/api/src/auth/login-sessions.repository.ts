import { Injectable } from '@nestjs/common';
import { PrismaService } from '../persistence/prisma.service.js';

export interface NewLoginSession {
  userId: string;
  secretHash: string;
  expiresAt: Date;
  ip: string | null;
  userAgent: string | null;
}

/** A live session with what the principal needs of its user. */
export interface ActiveLoginSession {
  id: string;
  secretHash: string;
  lastSeenAt: Date;
  user: { id: string; email: string; displayName: string; isAdmin: boolean };
}

@Injectable()
export class LoginSessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(session: NewLoginSession): Promise<string> {
    const row = await this.prisma.loginSession.create({ data: session, select: { id: true } });
    return row.id;
  }

  /** The session when it is neither revoked nor expired and its user is not disabled. */
  async findActive(id: string, now: Date): Promise<ActiveLoginSession | null> {
    return this.prisma.loginSession.findFirst({
      where: { id, revokedAt: null, expiresAt: { gt: now }, user: { disabledAt: null } },
      select: {
        id: true,
        secretHash: true,
        lastSeenAt: true,
        user: { select: { id: true, email: true, displayName: true, isAdmin: true } },
      },
    });
  }

  /** Moves lastSeenAt forward, at most once per `interval` (a conditional update: no write storm). */
  async touch(id: string, now: Date, intervalMs: number): Promise<void> {
    await this.prisma.loginSession.updateMany({
      where: { id, lastSeenAt: { lt: new Date(now.getTime() - intervalMs) } },
      data: { lastSeenAt: now },
    });
  }

  async revoke(id: string, now: Date): Promise<void> {
    await this.prisma.loginSession.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  }
}
