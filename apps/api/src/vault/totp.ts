import { Secret, TOTP, URI } from 'otpauth';

// TOTP (RFC 6238) through otpauth: a secret as people paste it (base32 with spaces, or the otpauth:// URI a
// QR code holds) becomes one canonical URI, kept sealed; codes are made from it when a form asks.

export class TotpInputError extends Error {
  override readonly name = 'TotpInputError';
}

/** The longest period and the digits a TOTP may use: anything else is not a TOTP a site would send. */
const PERIODS = { min: 10, max: 300 };
const DIGITS = { min: 6, max: 10 };
/** A secret shorter than 80 bits is not one a site issues (RFC 4226 asks for 128, allows 80 with a warning). */
const MIN_SECRET_BYTES = 10;

/** The canonical otpauth://totp URI of a pasted secret, or TotpInputError saying what is wrong (never echoing it). */
export function parseTotpInput(input: string): string {
  const text = input.trim();
  let totp: TOTP;
  if (/^otpauth:/i.test(text)) {
    let parsed;
    try {
      parsed = URI.parse(text);
    } catch {
      throw new TotpInputError('not a valid otpauth:// URI (it needs a base32 secret parameter)');
    }
    if (!(parsed instanceof TOTP)) throw new TotpInputError('an otpauth://hotp URI is a counter code, not a time-based one');
    totp = parsed;
  } else {
    const base32 = text.replace(/[\s-]/g, '').toUpperCase().replace(/=+$/, '');
    if (!/^[A-Z2-7]+$/.test(base32))
      throw new TotpInputError('a TOTP secret is base32 (letters A–Z and digits 2–7) or an otpauth:// URI');
    totp = new TOTP({ secret: Secret.fromBase32(base32) });
  }
  if (totp.secret.bytes.length < MIN_SECRET_BYTES) throw new TotpInputError('the TOTP secret is too short to be a real one');
  if (totp.period < PERIODS.min || totp.period > PERIODS.max) throw new TotpInputError('the TOTP period is out of range');
  if (totp.digits < DIGITS.min || totp.digits > DIGITS.max) throw new TotpInputError('a TOTP code has 6 to 10 digits');
  // Issuer and label are the site's words; kept so a revealed URI still imports into an authenticator app.
  return new TOTP({
    issuer: totp.issuer,
    label: totp.label,
    secret: totp.secret,
    algorithm: totp.algorithm,
    digits: totp.digits,
    period: totp.period,
  }).toString();
}

function totpOf(uri: string): TOTP {
  const parsed = URI.parse(uri);
  if (!(parsed instanceof TOTP)) throw new TotpInputError('not a TOTP');
  return parsed;
}

export interface TotpCode {
  code: string;
  /** Seconds until it changes. */
  expiresInSeconds: number;
}

/** The code of the period `now` falls in. */
export function totpCode(uri: string, now = Date.now()): TotpCode {
  const totp = totpOf(uri);
  const periodMs = totp.period * 1_000;
  return { code: totp.generate({ timestamp: now }), expiresInSeconds: Math.ceil((periodMs - (now % periodMs)) / 1_000) };
}

/** The codes a site would still accept around `now` (the previous, current and next periods), for redaction. */
export function totpCodesAround(uri: string, now = Date.now()): string[] {
  const totp = totpOf(uri);
  const periodMs = totp.period * 1_000;
  return [-1, 0, 1].map((step) => totp.generate({ timestamp: now + step * periodMs }));
}

/** The base32 secret of a stored URI (for an owner's reveal). */
export function totpSecretOf(uri: string): string {
  return totpOf(uri).secret.base32;
}
