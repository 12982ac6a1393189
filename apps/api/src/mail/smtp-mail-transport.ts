import { createTransport } from 'nodemailer';
import type { MailFailureReason, SmtpSettings } from '@lazyboy/contracts';
import { MailDeliveryError, type MailMessage, type MailTransport } from './mail-transport.js';

export interface SmtpMailTransportOptions {
  smtp: SmtpSettings;
  /** The sender's address (LAZYBOY_MAIL_FROM). */
  from: string;
  /** Each wait (connect, greeting, DNS, each reply) gives up after this; default 5 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DETAIL_MAX = 300;
/** Node's codes for a certificate that does not verify and for a handshake that went wrong. */
const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

interface NodemailerError {
  code?: string;
  originalCode?: string;
  responseCode?: number | false;
  command?: string;
  message?: string;
}

/**
 * MailTransport over SMTP (nodemailer): one connection per mail, to the configured host and port only. No
 * pool, proxy, file or URL access, no logger; TLS certificates are verified. Errors come out as
 * MailDeliveryError with the password (in every form it travels in) cut out of the text.
 */
export class SmtpMailTransport implements MailTransport {
  private readonly transporter;
  private readonly secrets: string[];

  constructor(private readonly options: SmtpMailTransportOptions) {
    const { smtp } = options;
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.transporter = createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      dnsTimeout: timeout,
      socketTimeout: timeout * 2,
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
      debug: false,
    });
    this.secrets = secretForms(smtp);
  }

  async send(message: MailMessage): Promise<void> {
    let rejected: unknown[];
    try {
      const info = await this.transporter.sendMail({
        from: { name: 'LazyBoy', address: this.options.from },
        // Objects, not strings: an address is never parsed into more than the one it is.
        to: { name: '', address: message.to },
        envelope: { from: this.options.from, to: [message.to] },
        subject: message.subject.replace(/[\r\n]+/g, ' '),
        text: message.text,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      rejected = info.rejected;
    } catch (error) {
      throw this.deliveryError(error);
    }
    if (rejected.length > 0) throw new MailDeliveryError('recipient_refused', 'the server refused the recipient');
  }

  private deliveryError(error: unknown): MailDeliveryError {
    const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as NodemailerError;
    const parts = [e.code, e.originalCode, e.responseCode, e.command].filter((part) => part !== undefined && part !== false);
    const text = `${parts.join(' ')}${parts.length > 0 ? ': ' : ''}${e.message ?? 'unknown error'}`;
    return new MailDeliveryError(reasonOf(e), this.redact(text));
  }

  private redact(text: string): string {
    let safe = text;
    for (const secret of this.secrets) safe = safe.split(secret).join('[redacted]');
    safe = safe.replace(/\s+/g, ' ').trim();
    return safe.length > DETAIL_MAX ? `${safe.slice(0, DETAIL_MAX - 1)}…` : safe;
  }
}

function reasonOf(error: NodemailerError): MailFailureReason {
  if (error.originalCode && TLS_CODE.test(error.originalCode)) return 'tls';
  switch (error.code) {
    case 'EAUTH':
    case 'ENOAUTH':
      return 'auth';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'ETLS':
    case 'EREQUIRETLS':
      return 'tls';
    case 'EDNS':
    case 'ECONNECTION':
    case 'ESOCKET':
      return 'unreachable';
    case 'EENVELOPE':
      return error.command === 'RCPT TO' ? 'recipient_refused' : 'refused';
    case 'EMESSAGE':
      return 'refused';
    default:
      return 'other';
  }
}

/** The password as written, percent-encoded and inside the AUTH PLAIN and LOGIN payloads (base64). */
function secretForms(smtp: SmtpSettings): string[] {
  const password = smtp.password;
  if (password === undefined || password === '') return [];
  const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const forms = [password, encodeURIComponent(password), base64(password), base64(`\u0000${smtp.user ?? ''}\u0000${password}`)];
  // Longest first, so a form inside another does not leave the rest of the longer one behind.
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}
