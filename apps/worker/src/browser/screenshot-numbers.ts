import type { ObservedElement } from '@lazyboy/desktop';
import { PNG } from 'pngjs';

// The numbers the model reads on its screenshot, drawn in Node on a copy of the PNG (the live page a person
// watches over VNC never gets an overlay). The digits are a bitmap font of this file: ImageMagick's text
// needs a system font lookup that fails on a plain Debian ("unable to read font `helvetica'"), which left
// every screenshot without numbers and nobody told.

/** 5×7 digits, a row per string, '#' lit. */
export const DIGIT_GLYPHS: readonly (readonly string[])[] = [
  ['.###.', '#...#', '#..##', '#.#.#', '##..#', '#...#', '.###.'],
  ['..#..', '.##..', '..#..', '..#..', '..#..', '..#..', '.###.'],
  ['.###.', '#...#', '....#', '...#.', '..#..', '.#...', '#####'],
  ['#####', '...#.', '..#..', '...#.', '....#', '#...#', '.###.'],
  ['...#.', '..##.', '.#.#.', '#..#.', '#####', '...#.', '...#.'],
  ['#####', '#....', '####.', '....#', '....#', '#...#', '.###.'],
  ['..##.', '.#...', '#....', '####.', '#...#', '#...#', '.###.'],
  ['#####', '....#', '...#.', '..#..', '.#...', '.#...', '.#...'],
  ['.###.', '#...#', '#...#', '.###.', '#...#', '#...#', '.###.'],
  ['.###.', '#...#', '#...#', '.####', '....#', '...#.', '.##..'],
];

/** How a label is laid out, in screenshot pixels: each glyph cell is SCALE×SCALE. */
export const LABEL = {
  scale: 2,
  padding: 2,
  /** Between two digits. */
  gap: 2,
  glyphWidth: 5,
  glyphHeight: 7,
} as const;

const INK: Rgb = [0xff, 0xd4, 0x00];
const BACKDROP: Rgb = [0x00, 0x00, 0x00];
const BACKDROP_ALPHA = 0.75;
const BOX_STROKE = 2;

type Rgb = readonly [number, number, number];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The label's size for a number of `digits` digits. */
export function labelSize(digits: number): { width: number; height: number } {
  const glyph = LABEL.glyphWidth * LABEL.scale;
  return {
    width: LABEL.padding * 2 + digits * glyph + (digits - 1) * LABEL.gap,
    height: LABEL.padding * 2 + LABEL.glyphHeight * LABEL.scale,
  };
}

/** Where an element's label goes: its box's top-left corner, kept inside the image. */
export function labelOrigin(box: Box, digits: number, image: { width: number; height: number }): { x: number; y: number } {
  const size = labelSize(digits);
  return {
    x: clamp(Math.round(box.x), 0, Math.max(0, image.width - size.width)),
    y: clamp(Math.round(box.y), 0, Math.max(0, image.height - size.height)),
  };
}

/**
 * A copy of `png` with each element in the viewport outlined and labelled with its number. A PNG that
 * cannot be read throws: a screenshot without its numbers is a bug to see, not one to hide.
 */
export function numberScreenshot(png: Buffer, elements: readonly ObservedElement[]): Buffer {
  const visible = elements.filter((el) => el.inViewport && el.box.width > 0 && el.box.height > 0);
  if (visible.length === 0) return png;
  const image = PNG.sync.read(png);
  for (const el of visible) outline(image, el.box);
  // Labels after every outline, so no outline crosses a number.
  for (const el of visible) label(image, el.box, String(el.id));
  // Encoded every observation: one filter (Paeth) instead of trying all five per row cuts the time
  // several-fold for the same size, and a screenshot has no transparency to keep.
  return PNG.sync.write(image, { colorType: 2, filterType: 4, deflateLevel: 3 });
}

function outline(image: PNG, box: Box): void {
  const left = Math.round(box.x);
  const top = Math.round(box.y);
  const right = Math.round(box.x + box.width) - 1;
  const bottom = Math.round(box.y + box.height) - 1;
  fill(image, left, top, right, top + BOX_STROKE - 1, INK, 1);
  fill(image, left, bottom - BOX_STROKE + 1, right, bottom, INK, 1);
  fill(image, left, top, left + BOX_STROKE - 1, bottom, INK, 1);
  fill(image, right - BOX_STROKE + 1, top, right, bottom, INK, 1);
}

function label(image: PNG, box: Box, text: string): void {
  const size = labelSize(text.length);
  const origin = labelOrigin(box, text.length, image);
  fill(image, origin.x, origin.y, origin.x + size.width - 1, origin.y + size.height - 1, BACKDROP, BACKDROP_ALPHA);
  const advance = LABEL.glyphWidth * LABEL.scale + LABEL.gap;
  [...text].forEach((char, index) => {
    const glyph = DIGIT_GLYPHS[Number(char)];
    if (!glyph) return;
    const left = origin.x + LABEL.padding + index * advance;
    const top = origin.y + LABEL.padding;
    glyph.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) {
        if (row[c] !== '#') continue;
        const x = left + c * LABEL.scale;
        const y = top + r * LABEL.scale;
        fill(image, x, y, x + LABEL.scale - 1, y + LABEL.scale - 1, INK, 1);
      }
    });
  });
}

/** Paints the rectangle (inclusive corners, clipped to the image) with `rgb` at `alpha` over what is there. */
function fill(image: PNG, x0: number, y0: number, x1: number, y1: number, rgb: Rgb, alpha: number): void {
  const left = Math.max(0, x0);
  const top = Math.max(0, y0);
  const right = Math.min(image.width - 1, x1);
  const bottom = Math.min(image.height - 1, y1);
  for (let y = top; y <= bottom; y++) {
    for (let x = left; x <= right; x++) {
      const at = (y * image.width + x) * 4;
      for (let channel = 0; channel < 3; channel++)
        image.data[at + channel] = Math.round(rgb[channel]! * alpha + image.data[at + channel]! * (1 - alpha));
      image.data[at + 3] = 255;
    }
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), max);
}
