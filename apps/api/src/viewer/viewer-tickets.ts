import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { deriveKey } from '../crypto/secret-box.js';

export type ViewerMode = 'view' | 'control';

const claimsSchema = z.strictObject({
  v: z.literal(1),
  /** Ticket id: a ticket is redeemed once. */
  jti: z.string().min(16),
  screenId: z.string(),
  computerId: z.string(),
  userId: z.string(),
  mode: z.enum(['view', 'control']),
  /** Expiry, ms since the epoch. */
  exp: z.number().int(),
});
export type ViewerTicketClaims = z.infer<typeof claimsSchema>;

export class InvalidTicketError extends Error {
  override readonly name = 'InvalidTicketError';
}

/**
 * Short-lived viewer tickets: `base64url(claims JSON).base64url(HMAC-SHA256)` with a key derived from the
 * vault key for this purpose only. Bound to one screen, one person and one mode; anything altered fails
 * the signature check, which is compared in constant time.
 */
export class ViewerTickets {
  private readonly key: Buffer;

  constructor(
    masterKey: string,
    readonly ttlMs = 60_000,
  ) {
    this.key = deriveKey(masterKey, 'viewer-ticket');
  }

  issue(claims: Omit<ViewerTicketClaims, 'v' | 'jti' | 'exp'>, now = Date.now()): { ticket: string; claims: ViewerTicketClaims } {
    const full: ViewerTicketClaims = { v: 1, jti: randomBytes(16).toString('base64url'), ...claims, exp: now + this.ttlMs };
    const body = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
    return { ticket: `${body}.${this.sign(body)}`, claims: full };
  }

  verify(ticket: string, now = Date.now()): ViewerTicketClaims {
    const [body, signature, ...rest] = ticket.split('.');
    if (!body || !signature || rest.length > 0) throw new InvalidTicketError('malformed ticket');
    const expected = Buffer.from(this.sign(body), 'base64url');
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidTicketError('bad signature');
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidTicketError('malformed ticket');
    }
    const claims = claimsSchema.safeParse(parsed);
    if (!claims.success) throw new InvalidTicketError('malformed ticket');
    if (claims.data.exp <= now) throw new InvalidTicketError('expired ticket');
    return claims.data;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
