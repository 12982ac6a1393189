import { createHash, timingSafeEqual } from 'node:crypto';

/** A bearer token a call must carry, compared by fixed-length digests so neither its content nor its length leaks through timing. */
export class BearerToken {
  private readonly digest: Buffer;

  constructor(token: string) {
    this.digest = digest(token);
  }

  /** Whether an `authorization` header carries this token. */
  admits(header: string | undefined): boolean {
    const match = /^Bearer (.+)$/.exec(header ?? '');
    return match?.[1] !== undefined && this.is(match[1]);
  }

  is(token: string): boolean {
    return timingSafeEqual(digest(token), this.digest);
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
