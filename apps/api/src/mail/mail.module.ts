import { Module } from '@nestjs/common';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { MAIL_TRANSPORT, type MailTransport } from './mail-transport.js';
import { SmtpMailTransport } from './smtp-mail-transport.js';

/** The instance's mail transport: SMTP when LAZYBOY_SMTP_URL is set, `null` (none) otherwise. */
export function mailTransportFor(config: ApiConfig): MailTransport | null {
  const smtp = config.LAZYBOY_SMTP_URL;
  // The schema requires a sender with the URL; checked again so a hand-made config cannot send from nobody.
  if (smtp === undefined || config.LAZYBOY_MAIL_FROM === undefined) return null;
  return new SmtpMailTransport({ smtp, from: config.LAZYBOY_MAIL_FROM });
}

@Module({
  providers: [{ provide: MAIL_TRANSPORT, useFactory: mailTransportFor, inject: [API_CONFIG] }],
  exports: [MAIL_TRANSPORT],
})
export class MailModule {}
