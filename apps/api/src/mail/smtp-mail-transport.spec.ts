import { describe, expect, it } from '@jest/globals';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { MailDeliveryError } from './mail-transport.js';
import { mailTransportConformance } from './mail-transport.conformance.js';
import { SmtpMailTransport } from './smtp-mail-transport.js';

mailTransportConformance('SmtpMailTransport', {
  transportTo: (server, from) =>
    new SmtpMailTransport({
      smtp: {
        secure: false,
        host: server.host,
        port: server.port,
        ...(server.user !== undefined ? { user: server.user } : {}),
        ...(server.password !== undefined ? { password: server.password } : {}),
      },
      from,
      timeoutMs: server.timeoutMs,
    }),
});

describe('SmtpMailTransport', () => {
  it('cuts the password out of a server reply that echoes it, in every form it travelled in', async () => {
    const password = 'echo me: s3cr3t/%20';
    const plain = Buffer.from(`\u0000mailer\u0000${password}`).toString('base64');
    // A careless server that quotes what it was given back in its refusal.
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        callback(new Error(`refused ${auth.password} ${encodeURIComponent(auth.password ?? '')} ${plain}`));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = server.server.address() as AddressInfo;
      const transport = new SmtpMailTransport({
        smtp: { secure: false, host: '127.0.0.1', port, user: 'mailer', password },
        from: 'lazyboy@example.test',
        timeoutMs: 1_500,
      });
      const error = (await transport
        .send({ to: 'someone@example.test', subject: 's', text: 't' })
        .catch((e: unknown) => e)) as MailDeliveryError;
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect(error.reason).toBe('auth');
      // The reply did reach the error (so the check below means something), with the secret cut out.
      expect(error.detail).toContain('refused [redacted] [redacted] [redacted]');
      for (const text of [error.message, error.detail]) {
        for (const form of [password, encodeURIComponent(password), plain]) expect(text).not.toContain(form);
      }
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('verifies the certificate a server offers for STARTTLS: one it cannot trust is `tls`, and nothing is sent', async () => {
    let received = 0;
    // smtp-server's own self-signed certificate, offered with STARTTLS.
    const server = new SMTPServer({
      authOptional: true,
      logger: false,
      onData(stream, _session, callback) {
        received++;
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const { port } = server.server.address() as AddressInfo;
      const transport = new SmtpMailTransport({
        smtp: { secure: false, host: '127.0.0.1', port },
        from: 'lazyboy@example.test',
        timeoutMs: 1_500,
      });
      const error = await transport.send({ to: 'someone@example.test', subject: 's', text: 't' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MailDeliveryError);
      expect((error as MailDeliveryError).reason).toBe('tls');
      expect(received).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
