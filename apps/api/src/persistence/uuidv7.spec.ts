import { describe, expect, it } from '@jest/globals';
import { uuidv7 } from './uuidv7.js';

describe('uuidv7', () => {
  it('is a version 7, variant 10 UUID carrying the millisecond timestamp', () => {
    const at = Date.UTC(2026, 10, 30, 4, 30);
    const id = uuidv7(at + 1_000_000);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at + 1_000_000);
  });

  it('keeps ids made within one millisecond, or with a clock going back, in creation order', () => {
    const at = Date.now() + 5_000_000;
    const ids = Array.from({ length: 5000 }, (_, i) => uuidv7(i === 4000 ? at - 10 : at));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
