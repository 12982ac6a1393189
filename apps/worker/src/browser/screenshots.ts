import { createHash } from 'node:crypto';
import { secretOnScreen, type ObservedElement } from '@lazyboy/desktop';
import type { Screenshot } from '@lazyboy/contracts';
import type { Page } from 'playwright-core';
import { numberScreenshot } from './screenshot-numbers.js';

/** Added to the observation when the screenshot was held back: the model reads why it got none. */
export const SCREENSHOT_WITHHELD_NOTE = '(screenshot withheld: a saved secret is on screen)';

export interface CapturedScreenshot {
  /** Null when unchanged since the last one sent, or withheld. */
  screenshot: Screenshot | null;
  /** A field the vault filled shows its text (secret-marks.ts in libs/desktop): no picture of it leaves. */
  withheld: boolean;
}

/**
 * Sends a screenshot only when the page looks different from the last one sent for the slot. The
 * signature is the sha256 of the viewport PNG Chromium encodes: identical pixels give identical bytes,
 * it costs one capture we need anyway when it changed, and it needs no image decoding in Node. The caret
 * is hidden for the capture (Playwright's default), or its blinking alone would count as a change.
 */
export class ScreenshotTracker {
  private readonly lastSent = new Map<number, string>();

  /** A new run on the slot has not seen anything yet. */
  reset(slot: number): void {
    this.lastSent.delete(slot);
  }

  async capture(slot: number, page: Page, elements: ObservedElement[], mode: 'auto' | 'always'): Promise<CapturedScreenshot> {
    // Asked first, every time, "always" included: text the model must not read must not reach it as pixels.
    if (await secretOnScreen(page)) return { screenshot: null, withheld: true };
    const png = await page.screenshot({ type: 'png', scale: 'css', caret: 'hide', timeout: 10_000 });
    const signature = createHash('sha256').update(png).digest('hex');
    if (mode === 'auto' && this.lastSent.get(slot) === signature) return { screenshot: null, withheld: false };
    this.lastSent.set(slot, signature);
    const numbered = numberScreenshot(png, elements);
    const screenshot: Screenshot = {
      mimeType: 'image/png',
      data: numbered.toString('base64'),
      width: png.readUInt32BE(16),
      height: png.readUInt32BE(20),
    };
    return { screenshot, withheld: false };
  }
}
