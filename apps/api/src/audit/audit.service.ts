import { Injectable } from '@nestjs/common';
import type { Prisma } from '../persistence/generated/client.js';
import { AuditRepository } from './audit.repository.js';

/** A JSON object of plain values: what `details` may hold. */
export type AuditDetails = Prisma.InputJsonObject;

/**
 * One thing that happened, for the audit log. Actions are dotted verbs, area first (`auth.login`,
 * `member.role_change`, `computer.stop`, `takeover.start`); the target names what it happened to
 * (`targetType: 'user' | 'workspace' | 'computer' | ...` plus its id).
 */
export interface AuditEntry {
  /** The workspace it happened in; absent for instance-wide events (a sign-in). */
  workspaceId?: string | null;
  /** Who did it; absent for the system itself or an unknown caller (a failed sign-in for no account). */
  actorUserId?: string | null;
  action: string;
  targetType: string;
  targetId?: string | null;
  /** Anything else worth keeping. Never secrets: no passwords, tokens or keys. */
  details?: AuditDetails;
  /** The caller's address, when the event came from a request. */
  ip?: string | null;
}

/**
 * Writes the audit log (AuditLog rows). `record` resolves once the row is stored and rejects when the
 * database refuses it: callers that must not fail because of the audit log catch that themselves.
 */
@Injectable()
export class AuditService {
  constructor(private readonly audit: AuditRepository) {}

  async record(entry: AuditEntry): Promise<void> {
    await this.audit.insert({
      workspaceId: entry.workspaceId ?? null,
      actorUserId: entry.actorUserId ?? null,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId ?? null,
      metadata: entry.details ?? {},
      ip: entry.ip ?? null,
    });
  }
}
