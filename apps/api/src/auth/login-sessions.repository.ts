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

  /**
   * The session when it is neither revoked nor expired and its user is not disabled. Plain SQL: every
   * request of a signed-in browser asks this.
   */
  async findActive(id: string, now: Date): Promise<ActiveLoginSession | null> {
    const rows = await this.prisma.$queryRaw<
      (Omit<ActiveLoginSession, 'user'> & { userId: string; email: string; displayName: string; isAdmin: boolean })[]
    >`
      SELECT s.id, s."secretHash", s."lastSeenAt", u.id AS "userId", u.email, u."displayName", u."isAdmin"
      FROM "LoginSession" s JOIN "User" u ON u.id = s."userId"
      WHERE s.id = ${id}::uuid AND s."revokedAt" IS NULL AND s."expiresAt" > ${now} AND u."disabledAt" IS NULL`;
    const row = rows[0];
    if (!row) return null;
    const { userId, email, displayName, isAdmin, ...session } = row;
    return { ...session, user: { id: userId, email, displayName, isAdmin } };
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
