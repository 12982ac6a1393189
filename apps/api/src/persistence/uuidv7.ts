import { randomFillSync } from 'node:crypto';

/**
 * A UUIDv7 (RFC 9562) made here, for rows the plain-SQL paths insert: the same kind of id Prisma's
 * `@default(uuid(7))` gives, time-ordered so the primary-key index stays append-mostly. Within one
 * millisecond the 12-bit counter field (rand_a, method 1 of RFC 9562 §6.2) keeps ids of this process in
 * creation order.
 */
let lastMs = -1;
let counter = 0;
const bytes = Buffer.alloc(16);

export function uuidv7(now: number = Date.now()): string {
  let ms = now;
  if (ms <= lastMs) {
    ms = lastMs;
    counter += 1;
    // The counter ran over within one millisecond: borrow the next one (ids stay ordered and unique).
    if (counter > 0xfff) {
      ms = lastMs + 1;
      counter = 0;
    }
  } else {
    counter = 0;
  }
  lastMs = ms;
  randomFillSync(bytes, 8, 8);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
