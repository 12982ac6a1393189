// Saved secrets (vault passwords, TOTP secrets and their current codes) must never reach the model, even
// when a page, a file or a command's output happens to contain one: every text the model would read is
// passed through here first. Longest match first, so a secret that contains another is replaced whole.

/** What a secret becomes in text the model reads. */
export const REDACTED_SECRET = '[saved secret]';

/**
 * Shorter secrets are not replaced: "1234" would turn every page count and port into a placeholder, and a
 * secret that short is guessed faster than it is hidden.
 */
export const MIN_REDACTED_LENGTH = 4;

/** The secrets to hide right now (codes change every period, accounts are added while a run goes on). */
export type SecretSource = () => readonly string[];

export class SecretRedactor {
  private cached: { key: string; pattern: RegExp | null; secrets: string[] } = { key: '', pattern: null, secrets: [] };

  constructor(private readonly source: SecretSource) {}

  /** `text` with every secret replaced by REDACTED_SECRET. */
  redact(text: string): string {
    const { pattern } = this.current();
    return pattern ? text.replace(pattern, REDACTED_SECRET) : text;
  }

  /** A redactor for text that arrives in pieces (a command's output): a secret split between two is still caught. */
  stream(): RedactionStream {
    return new RedactionStream(this);
  }

  /** The longest end of `text` that could be the start of a secret (held back until the next piece). */
  pendingPrefixLength(text: string): number {
    const { secrets } = this.current();
    let longest = 0;
    for (const secret of secrets) {
      const max = Math.min(secret.length - 1, text.length);
      for (let length = max; length > longest; length--) {
        if (text.endsWith(secret.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }

  private current(): { pattern: RegExp | null; secrets: string[] } {
    const secrets = [...new Set(this.source())]
      .filter((s) => s.length >= MIN_REDACTED_LENGTH)
      .sort((a, b) => b.length - a.length);
    const key = secrets.join('\u0000');
    if (key !== this.cached.key) {
      const pattern = secrets.length === 0 ? null : new RegExp(secrets.map(escapeRegExp).join('|'), 'g');
      this.cached = { key, pattern, secrets };
    }
    return this.cached;
  }
}

/** One stream of text pieces: what could still become a secret is held until the next piece or the end. */
export class RedactionStream {
  private held = '';

  constructor(private readonly redactor: SecretRedactor) {}

  push(piece: string): string {
    const text = this.redactor.redact(this.held + piece);
    const hold = this.redactor.pendingPrefixLength(text);
    this.held = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  end(): string {
    const rest = this.redactor.redact(this.held);
    this.held = '';
    return rest;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
