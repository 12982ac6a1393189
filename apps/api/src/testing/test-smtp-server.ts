import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** A mail the server took, as it arrived. */
export interface ReceivedMail {
  /** MAIL FROM and RCPT TO. */
  envelope: { from: string | false; to: string[] };
  /** The account it signed in with, and how (PLAIN, LOGIN); null without AUTH. */
  auth: { user: string; method: string } | null;
  /** Every header line, unfolded and decoded no further. */
  headers: string;
  subject: string;
  /** The body, its transfer encoding undone. */
  text: string;
}

export interface TestSmtpServerOptions {
  /** The one account AUTH takes; without it the server offers no AUTH. */
  account?: { user: string; password: string };
  authMethods?: ('PLAIN' | 'LOGIN')[];
  /** Recipients the server refuses at RCPT TO (550). */
  refuses?: (address: string) => boolean;
}

export interface TestSmtpServer {
  host: string;
  port: number;
  mails: ReceivedMail[];
  /** Sign-ins the server refused. */
  refusedLogins: number;
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server) on a free loopback port, without STARTTLS (the tests speak plain SMTP
 * to loopback), keeping every mail it takes. A mail is kept before the server answers its DATA, so it is
 * here once the sender's call returns.
 */
export async function startTestSmtpServer(options: TestSmtpServerOptions = {}): Promise<TestSmtpServer> {
  const state: Pick<TestSmtpServer, 'mails' | 'refusedLogins'> = { mails: [], refusedLogins: 0 };
  const config: SMTPServerOptions = {
    disabledCommands: options.account ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authMethods: options.authMethods ?? ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    authOptional: !options.account,
    logger: false,
    onAuth(auth, _session, callback) {
      const account = options.account;
      if (account && auth.username === account.user && auth.password === account.password) {
        callback(null, { user: `${auth.method}:${auth.username}` });
        return;
      }
      state.refusedLogins++;
      callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (options.refuses?.(address.address)) {
        callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const [method, ...user] = typeof session.user === 'string' ? session.user.split(':') : [];
        state.mails.push({
          envelope: {
            from: session.envelope.mailFrom === false ? false : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          },
          auth: method ? { method, user: user.join(':') } : null,
          ...parseMail(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(config);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return Object.assign(state, {
    host: '127.0.0.1',
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Headers, subject and text of a single-part mail (what the API sends). */
function parseMail(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text'> {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1]?.trim() ?? '';
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body, 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : body;
  return { headers, subject: decodeEncodedWords(header('Subject')), text: text.replace(/\r\n/g, '\n') };
}

function decodeQuotedPrintable(body: string): string {
  // A literal % first, so that only the =XX escapes become percent escapes.
  const escaped = body
    .replace(/%/g, '%25')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`);
  return decodeURIComponent(escaped);
}

/** RFC 2047 words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) in a header. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([BQ])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}
