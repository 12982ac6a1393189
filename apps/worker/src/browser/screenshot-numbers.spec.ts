import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BrowserActionResponse } from '@lazyboy/contracts';
import type { ObservedElement } from '@lazyboy/desktop';
import { PNG } from 'pngjs';
import { startTestSite, type TestSite } from '../../../../libs/desktop/src/testing/test-site.js';
import { WorkerFixture, type Answer } from '../testing/worker-fixture.js';
import { DIGIT_GLYPHS, LABEL, labelOrigin, numberScreenshot } from './screenshot-numbers.js';

// The numbers on the model's screenshot are read back from the pixels, the way the model would read
// them: each label decoded glyph by glyph at its element's corner.

type Box = ObservedElement['box'];

function isInk(image: PNG, x: number, y: number): boolean {
  const at = (y * image.width + x) * 4;
  return image.data[at]! > 200 && image.data[at + 1]! > 170 && image.data[at + 2]! < 90;
}

/** The digits of the label at `box`'s corner, as drawn: '' when there is none. */
function readLabel(image: PNG, box: Box): string {
  const advance = LABEL.glyphWidth * LABEL.scale + LABEL.gap;
  for (let digits = 6; digits >= 1; digits--) {
    const origin = labelOrigin(box, digits, image);
    let text = '';
    for (let index = 0; index < digits; index++) {
      const left = origin.x + LABEL.padding + index * advance;
      const top = origin.y + LABEL.padding;
      const digit = DIGIT_GLYPHS.findIndex((glyph) =>
        glyph.every((row, r) =>
          [...row].every((cell, c) => (cell === '#') === isInk(image, left + c * LABEL.scale, top + r * LABEL.scale)),
        ),
      );
      if (digit < 0) break;
      text += String(digit);
    }
    if (text.length === digits) return text;
  }
  return '';
}

function blank(width: number, height: number): Buffer {
  const image = new PNG({ width, height });
  image.data.fill(255);
  return PNG.sync.write(image);
}

const element = (id: number, box: Box, inViewport = true): ObservedElement => ({
  id,
  role: 'button',
  name: `b${id}`,
  details: [],
  box,
  surface: false,
  inViewport,
});

describe('numbers drawn on a screenshot', () => {
  it('labels every element in the viewport with a number that reads back, and outlines it', () => {
    const elements = [
      element(7, { x: 20, y: 20, width: 80, height: 30 }),
      element(1234, { x: 150, y: 100, width: 120, height: 40 }),
      // At the right edge: the label moves inside the image.
      element(56, { x: 290, y: 170, width: 10, height: 10 }),
      element(99, { x: 20, y: 120, width: 80, height: 30 }, false),
    ];
    const image = PNG.sync.read(numberScreenshot(blank(300, 200), elements));
    expect(elements.map((el) => readLabel(image, el.box))).toEqual(['7', '1234', '56', '']);
    // The outline's bottom-right corner, and nothing where the element out of view would be.
    expect(isInk(image, 99, 49)).toBe(true);
    expect(isInk(image, 20, 120)).toBe(false);
  });

  it('throws on a picture it cannot read instead of sending it without numbers', () => {
    expect(() => numberScreenshot(Buffer.from('not a png'), [element(1, { x: 0, y: 0, width: 5, height: 5 })])).toThrow();
  });
});

describe("the model's screenshot of a real page (Xvfb, Chromium over CDP)", () => {
  const worker = new WorkerFixture('screenshot-numbers-spec', 1);
  let site: TestSite;
  const act = (action: string, body: Record<string, unknown>) =>
    worker.post(`/browser/${action}`, { slot: 0, fence: 1, ...body }) as Promise<Answer<BrowserActionResponse>>;

  beforeAll(async () => {
    site = await startTestSite((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Buttons</title><body style="margin:0;background:#fff">
        <button id="a" style="position:absolute;left:40px;top:60px;width:120px;height:40px">Reply</button>
        <button id="b" style="position:absolute;left:300px;top:200px;width:140px;height:50px">Archive</button>
        <a id="c" href="#x" style="position:absolute;left:600px;top:400px">Next page</a></body>`);
    });
    await worker.start();
    expect((await worker.post('/screens/ensure', { slot: 0, profileKey: 'numbers-agent', fence: 1 })).status).toBe(200);
    expect((await act('navigate', { url: site.url })).status).toBe(200);
  });

  afterAll(async () => {
    await worker.stop();
    await site?.close();
  });

  it('carries the number of each element the observation names, readable at the element', async () => {
    const seen = await act('observe', { screenshot: 'always' });
    expect(seen.status).toBe(200);
    const screenshot = seen.body.screenshot;
    expect(screenshot?.mimeType).toBe('image/png');
    const image = PNG.sync.read(Buffer.from(screenshot!.data, 'base64'));
    const rects = await act('eval', {
      expression: `['a', 'b', 'c'].map((id) => { const r = document.getElementById(id).getBoundingClientRect();
        return { name: document.getElementById(id).textContent, x: r.x, y: r.y, width: r.width, height: r.height }; })`,
    });
    const boxes = (rects.body.result as { value: (Box & { name: string })[] }).value;
    for (const box of boxes) {
      const number = new RegExp(`\\[(\\d+)\\][^\\n]*${box.name}`).exec(seen.body.observation)?.[1];
      expect(number).toBeDefined();
      expect(readLabel(image, box)).toBe(number);
    }
  });
});
