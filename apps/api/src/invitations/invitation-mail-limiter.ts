import { Injectable, Logger } from '@nestjs/common';
import { countInWindows } from '../auth/rate-windows.js';
import { sha256Hex } from '../auth/secrets.js';
import { RedisService } from '../redis/redis.service.js';

/** Invitation mails one address receives in an hour: inviting it again and again mails it no more than this. */
export const INVITATION_MAILS_PER_RECIPIENT = 5;
/** Invitation mails one inviter sends in an hour (under the `open` policy anyone can be an owner). */
export const INVITATION_MAILS_PER_INVITER = 50;
const WINDOW_SECONDS = 60 * 60;

/**
 * Keeps the instance's mail server from being anyone's mail cannon: the invitation is made either way, but
 * past these counts its link is not mailed (copy it). Counted before sending, so parallel creations cannot
 * all slip through. While Redis is unreachable mails go out (logged), like the other limits.
 */
@Injectable()
export class InvitationMailLimiter {
  private readonly logger = new Logger(InvitationMailLimiter.name);

  constructor(private readonly redis: RedisService) {}

  /** Counts one mail to `email` from `inviterId`; false when either is over its hourly allowance. */
  async allow(email: string, inviterId: string): Promise<boolean> {
    try {
      const [to, by] = await countInWindows(
        this.redis.client,
        [`lazyboy:invitation-mails:to:${sha256Hex(email)}`, `lazyboy:invitation-mails:by:${inviterId}`],
        WINDOW_SECONDS,
      );
      return to.count <= INVITATION_MAILS_PER_RECIPIENT && by.count <= INVITATION_MAILS_PER_INVITER;
    } catch (error) {
      this.logger.warn(`invitation mail limit not applied, redis unavailable: ${(error as Error).message}`);
      return true;
    }
  }
}
