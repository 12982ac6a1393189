import { createHash } from 'node:crypto';
import { runClientBinary, type NativeDisplay } from './helpers.js';

/** Thumbnail size for signatures: small enough to ignore a blinking caret's exact pixels, large enough for a dialog. */
const THUMB_WIDTH = 32;
const THUMB_HEIGHT = 20;
const THUMB_ARGS = ['-resize', `${THUMB_WIDTH}x${THUMB_HEIGHT}!`, '-colorspace', 'gray', '-depth', '8'];

export interface ScreenSignature {
  /** Hex hash of the grey thumbnail: equal signatures mean (almost certainly) the same screen. */
  signature: string;
  /** The 32×20 8-bit grey thumbnail itself, for a graded comparison with `thumbnailDifference`. */
  thumbnail: Buffer;
}

export interface Screenshot extends ScreenSignature {
  png: Buffer;
}

/** The whole display as PNG, with its signature. */
export async function screenshot(display: NativeDisplay, slot: number): Promise<Screenshot> {
  const png = await runClientBinary(display, slot, 'import', ['-window', 'root', 'png:-']);
  // From the same pixels as the PNG, so the signature describes exactly this picture.
  const thumbnail = await runClientBinary(display, slot, 'convert', ['png:-', ...THUMB_ARGS, 'gray:-'], { input: png });
  return { png, ...signatureOf(thumbnail) };
}

/** Only the signature: one `import` straight into a thumbnail, no PNG encoding. */
export async function screenSignature(display: NativeDisplay, slot: number): Promise<ScreenSignature> {
  const thumbnail = await runClientBinary(display, slot, 'import', ['-window', 'root', ...THUMB_ARGS, 'gray:-']);
  return signatureOf(thumbnail);
}

/** Mean absolute difference of two thumbnails, 0 (same) … 255 (inverted). */
export function thumbnailDifference(a: Buffer, b: Buffer): number {
  if (a.length !== b.length || a.length === 0) return 255;
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += Math.abs((a[index] ?? 0) - (b[index] ?? 0));
  return sum / a.length;
}

function signatureOf(thumbnail: Buffer): ScreenSignature {
  return { signature: createHash('sha256').update(thumbnail).digest('hex').slice(0, 16), thumbnail };
}
