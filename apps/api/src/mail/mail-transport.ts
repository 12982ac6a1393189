import type { MailFailureReason } from '@lazyboy/contracts';

/** One plain-text mail to one address. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * The port the API sends mail through (invitation links). An adapter resolves once a server took the message
 * for delivery and otherwise throws a MailDeliveryError: never anything else, and never a secret of its own.
 */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
}

/**
 * Injection token of the configured MailTransport, or `null` when the instance has none (LAZYBOY_SMTP_URL
 * unset): callers then say so instead of sending.
 */
export const MAIL_TRANSPORT = Symbol('MAIL_TRANSPORT');

/**
 * A mail did not go out. `reason` is stable (the web app words it); `detail` is one redacted line for the
 * log: no password, no message text.
 */
export class MailDeliveryError extends Error {
  override readonly name = 'MailDeliveryError';

  constructor(
    readonly reason: MailFailureReason,
    readonly detail: string,
  ) {
    super(`mail not sent (${reason}): ${detail}`);
  }
}
