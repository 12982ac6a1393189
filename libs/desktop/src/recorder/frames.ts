import type { NativeDisplay } from '../native/helpers.js';
import { screenshot, screenSignature, thumbnailDifference, type Screenshot, type ScreenSignature } from '../native/screenshot.js';
import type { KeyFrame, KeyFrameReason } from './types.js';

/** Where key frames come from: a cheap coarse signature to poll, and the full picture when it is worth keeping. */
export interface FrameSource {
  signature(): Promise<ScreenSignature>;
  capture(): Promise<Screenshot>;
}

/**
 * The whole X display of a screen (what the person demonstrating actually sees, native dialogs and other
 * windows included). Polling costs one ImageMagick `import` straight into a 32×20 grey thumbnail; the PNG is
 * only encoded when a frame is kept.
 */
export function displayFrameSource(display: NativeDisplay, slot: number): FrameSource {
  return {
    signature: () => screenSignature(display, slot),
    capture: () => screenshot(display, slot),
  };
}

export interface KeyFrameSamplerOptions {
  intervalMs: number;
  maxFrames: number;
  /**
   * Mean grey difference (0…255) of the 32×20 thumbnails below which the screen counts as unchanged. Compared
   * with the last kept frame, not the last sample, so a slow change still adds up to a frame. A blinking caret
   * or a few typed characters stay far below 1; a new page, an opened dialog or menu are well above.
   */
  minDifference: number;
  /** A navigation's frame waits this long after the page's load so the window has painted it. */
  settleMs: number;
  startedAt: number;
  /** The seq of the newest event, stamped on each frame. */
  lastSeq: () => number;
  onError: (error: unknown) => void;
}

export interface SamplerProgress {
  samples: number;
  frames: number;
  framesDropped: number;
  errors: number;
}

/**
 * Polls the source's signature on a timer and keeps a frame only when the screen has changed, so an idle
 * demonstration does not spend the frame budget. All source calls run one after another on one chain, so a
 * forced frame never overlaps a sample.
 */
export class KeyFrameSampler {
  readonly frames: KeyFrame[] = [];
  private samples = 0;
  private dropped = 0;
  private errors = 0;
  private lastThumbnail: Buffer | undefined;
  private lastSignature = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly settling = new Set<NodeJS.Timeout>();
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly source: FrameSource,
    private readonly options: KeyFrameSamplerOptions,
  ) {}

  /** Takes the first frame (resolves when it is taken) and starts polling. */
  async start(): Promise<void> {
    await this.enqueue(() => this.take('start'));
    this.schedule();
  }

  /** A frame regardless of the signature, after the settle delay (navigations). */
  requestFrame(reason: KeyFrameReason): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.settling.delete(timer);
      void this.enqueue(() => this.take(reason));
    }, this.options.settleMs);
    this.settling.add(timer);
  }

  progress(): SamplerProgress {
    return { samples: this.samples, frames: this.frames.length, framesDropped: this.dropped, errors: this.errors };
  }

  /**
   * Takes the frames still owed (navigations waiting to settle, and the final screen if it changed: it shows
   * how the demonstration ended); no timer is left and no source call is running once this resolves.
   */
  async stop(): Promise<void> {
    if (this.stopped) return this.chain;
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const timer of this.settling) {
      clearTimeout(timer);
      void this.enqueue(() => this.take('navigation'));
    }
    this.settling.clear();
    void this.enqueue(() => this.sample());
    await this.chain;
  }

  private schedule(): void {
    // At the cap nothing more can be kept, so polling would only burn CPU.
    if (this.stopped || this.frames.length >= this.options.maxFrames) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      void this.enqueue(() => this.sample()).then(() => this.schedule());
    }, this.options.intervalMs);
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(async () => {
      try {
        await work();
      } catch (error) {
        this.errors += 1;
        this.options.onError(error);
      }
    });
    this.chain = next;
    return next;
  }

  private async sample(): Promise<void> {
    if (this.frames.length >= this.options.maxFrames) return;
    this.samples += 1;
    const { signature, thumbnail } = await this.source.signature();
    if (!this.changed(signature, thumbnail)) return;
    await this.take('change');
  }

  private changed(signature: string, thumbnail: Buffer): boolean {
    if (!this.lastThumbnail) return true;
    if (signature === this.lastSignature) return false;
    return thumbnailDifference(thumbnail, this.lastThumbnail) >= this.options.minDifference;
  }

  private async take(reason: KeyFrameReason): Promise<void> {
    if (this.frames.length >= this.options.maxFrames) {
      this.dropped += 1;
      return;
    }
    const shot = await this.source.capture();
    const now = Date.now();
    const difference = this.lastThumbnail ? thumbnailDifference(shot.thumbnail, this.lastThumbnail) : 255;
    this.frames.push({
      index: this.frames.length,
      at: new Date(now).toISOString(),
      offsetMs: now - this.options.startedAt,
      reason,
      afterSeq: this.options.lastSeq(),
      signature: shot.signature,
      difference: Math.round(difference * 100) / 100,
      png: shot.png,
    });
    this.lastThumbnail = shot.thumbnail;
    this.lastSignature = shot.signature;
  }
}
