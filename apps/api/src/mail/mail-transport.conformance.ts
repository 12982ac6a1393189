import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestSmtpServer, type TestSmtpServer } from '../testing/test-smtp-server.js';
import { MailDeliveryError, type MailTransport } from './mail-transport.js';

/** Where the suite points an adapter: a real SMTP server it started (or a port where nothing answers). */
export interface MailServerUnderTest {
  host: string;
  port: number;
  user?: string;
  password?: string;
  /** Each wait of the adapter; short here, so the hanging cases end soon. */
  timeoutMs: number;
}

export interface MailTransportHarness {
  /** The adapter under test, sending from `from` through `server`. */
  transportTo(server: MailServerUnderTest, from: string): MailTransport;
}

const FROM = 'lazyboy@example.test';
const USER = 'mailer';
// What a password may hold: every form it travels in must stay out of errors.
const PASSWORD = 'p@ss:wörd/%41 "quoted"';
const TIMEOUT_MS = 1_500;

/** Resolves with the MailDeliveryError `send` must throw. */
async function refusal(transport: MailTransport, to: string): Promise<MailDeliveryError> {
  const error = await transport.send({ to, subject: 'refused', text: 'refused' }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MailDeliveryError);
  const failure = error as MailDeliveryError;
  for (const text of [failure.message, failure.detail, String(failure.stack)]) {
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(encodeURIComponent(PASSWORD));
    expect(text).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  }
  return failure;
}

/**
 * What every MailTransport must do, against a real SMTP server (smtp-server) started here: deliver one
 * mail to its one recipient intact, sign in with PLAIN and LOGIN, and turn every failure (a refused
 * password or recipient, nothing listening, a server that never answers) into a MailDeliveryError with
 * its reason and no password, in bounded time.
 */
export function mailTransportConformance(name: string, harness: MailTransportHarness): void {
  describe(`${name}: MailTransport conformance`, () => {
    let server: TestSmtpServer;
    let silent: Server;
    const to = (target: { host: string; port: number }, password = PASSWORD) =>
      harness.transportTo({ host: target.host, port: target.port, user: USER, password, timeoutMs: TIMEOUT_MS }, FROM);

    beforeAll(async () => {
      server = await startTestSmtpServer({
        account: { user: USER, password: PASSWORD },
        refuses: (address) => address.endsWith('@refused.example.test'),
      });
      // Takes the connection and never says a word.
      silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await server?.close();
      await new Promise((resolve) => silent?.close(resolve));
    });

    it('delivers one mail to its one recipient, with its subject and text intact', async () => {
      const before = server.mails.length;
      const text = '歡迎加入「研發部」\nWelcome aboard: https://lazyboy.example.test/invite/abc\n';
      await to(server).send({ to: 'newcomer@example.test', subject: '邀請 / Invitation “R&D”', text });
      const mail = server.mails[before];
      expect(server.mails).toHaveLength(before + 1);
      expect(mail?.envelope).toEqual({ from: FROM, to: ['newcomer@example.test'] });
      expect(mail?.subject).toBe('邀請 / Invitation “R&D”');
      expect(mail?.text.trimEnd()).toBe(text.trimEnd());
    });

    it('keeps a subject to one header: a line break in it adds no header and no recipient', async () => {
      const before = server.mails.length;
      await to(server).send({ to: 'one@example.test', subject: 'Hello\r\nBcc: other@example.test', text: 'x' });
      const mail = server.mails[before];
      expect(mail?.envelope.to).toEqual(['one@example.test']);
      expect(mail?.headers).not.toMatch(/^Bcc:/im);
    });

    for (const method of ['PLAIN', 'LOGIN'] as const) {
      it(`signs in with AUTH ${method}`, async () => {
        const only = await startTestSmtpServer({ account: { user: USER, password: PASSWORD }, authMethods: [method] });
        try {
          await to(only).send({ to: 'someone@example.test', subject: method, text: method });
          expect(only.mails.map((mail) => mail.auth)).toEqual([{ method, user: USER }]);
        } finally {
          await only.close();
        }
      });
    }

    it('a refused password is `auth`, and nothing is sent', async () => {
      const before = server.mails.length;
      const refusedBefore = server.refusedLogins;
      const failure = await refusal(to(server, `${PASSWORD}-wrong`), 'someone@example.test');
      expect(failure.reason).toBe('auth');
      expect(server.refusedLogins).toBe(refusedBefore + 1);
      expect(server.mails).toHaveLength(before);
    });

    it('a recipient the server refuses is `recipient_refused`, and nothing is sent', async () => {
      const before = server.mails.length;
      const failure = await refusal(to(server), 'nobody@refused.example.test');
      expect(failure.reason).toBe('recipient_refused');
      expect(server.mails).toHaveLength(before);
    });

    it('nothing listening is `unreachable`', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      expect((await refusal(to({ host: '127.0.0.1', port }), 'someone@example.test')).reason).toBe('unreachable');
    });

    it('a server that never greets is `timeout`, within the adapter’s own waits', async () => {
      const { port } = silent.address() as AddressInfo;
      expect((await refusal(to({ host: '127.0.0.1', port }), 'someone@example.test')).reason).toBe('timeout');
      // A bound, not a measurement: the adapter gave up by itself, long before Jest would have.
    }, 15_000);
  });
}
