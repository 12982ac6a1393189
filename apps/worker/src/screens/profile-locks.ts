/**
 * Slots whose last ensure was refused because another screen runs their Chromium profile. Remembered so
 * that a browser call on such a slot says "profile locked" rather than a bare "screen not running".
 */
export class ProfileLocks {
  private readonly locked = new Map<number, string>();

  record(slot: number, message: string): void {
    this.locked.set(slot, message);
  }

  clear(slot: number): void {
    this.locked.delete(slot);
  }

  message(slot: number): string | undefined {
    return this.locked.get(slot);
  }
}
