/// <reference lib="dom" />
// Runs inside the page (passed to page.evaluate as a function, so it must not close over anything).
// Finds what a person could interact with right now and keeps each element's number in a per-document
// registry: an element keeps its number for as long as it lives, a new one gets the next free number, so
// "element 7" means the same thing in every observation and a later action can name it.

export interface ObservedElement {
  id: number;
  /** What it is: button, link, textbox, checkbox, select, … */
  role: string;
  /** Its accessible name or visible text, shortened. */
  name: string;
  /** Extra facts: value, placeholder, href, checked, disabled, options. */
  details: string[];
  /** Its box in CSS pixels of the viewport (for the overlay). */
  box: { x: number; y: number; width: number; height: number };
  /** Acted on at a point of its own (a canvas, a picture, a slider): its box goes into the observation. */
  surface: boolean;
  inViewport: boolean;
  /** Outside the box of an ancestor that scrolls or cuts off its content: scroll that box, or it is folded away. */
  clipped?: 'scrolled away' | 'cut off';
}

export interface ObservedPage {
  /** How many times this document was observed: the registry's count, for the caller's bookkeeping. */
  generation: number;
  /** The first number no element of this tab carries yet (the next document numbers on from it). */
  nextId: number;
  url: string;
  title: string;
  elements: ObservedElement[];
  /** Visible text of the page (headings, paragraphs, labels), condensed. */
  text: string;
  scroll: { y: number; height: number; viewportHeight: number };
}

/** The numbers of one document: kept on its window between observations. */
export interface ElementRegistry {
  generation: number;
  nextId: number;
  ids: WeakMap<Element, number>;
  /** The numbered elements still in the document at the latest observation. */
  byId: Map<number, Element>;
}

/**
 * Collects the interactive elements, numbering the ones not seen before from `nextId` on (the tab's
 * counter, so that a new document never reuses a number an old one had); the registry is kept under
 * window.__lazyboyElements.
 */
export function observeInPage(args: { maxTextChars: number; maxElements: number; nextId: number }): ObservedPage {
  const w = window as unknown as { __lazyboyElements?: ElementRegistry };
  const registry: ElementRegistry = w.__lazyboyElements ?? {
    generation: 0,
    nextId: args.nextId,
    ids: new WeakMap(),
    byId: new Map(),
  };
  w.__lazyboyElements = registry;
  registry.generation += 1;
  registry.nextId = Math.max(registry.nextId, args.nextId);
  const generation = registry.generation;

  // Elements a script made clickable (pointer-listeners.ts marked them just before this observation).
  const listening = (window as unknown as { __lazyboyListening?: WeakSet<Element> }).__lazyboyListening;
  const INTERACTIVE =
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=checkbox], ' +
    '[role=radio], [role=tab], [role=menuitem], [role=option], [role=switch], [role=combobox], [role=textbox], ' +
    '[contenteditable=""], [contenteditable=true], [onclick], [ondblclick], [onmousedown], [tabindex]:not([tabindex="-1"]), svg[role=img], svg[aria-label], ' +
    'canvas, [role=slider], [draggable=true]';

  const visible = (el: Element): boolean => {
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) return false;
    const style = getComputedStyle(el);
    return !(style.visibility === 'hidden' || style.display === 'none' || Number(style.opacity) === 0);
  };

  /**
   * Whether an ancestor that scrolls or cuts off its content (a list, a carousel, a folded drawer) holds
   * the element outside its box: a person would scroll that box, or does not see the element at all.
   */
  const clippedBy = (el: Element): 'scrolled away' | 'cut off' | undefined => {
    const rect = el.getBoundingClientRect();
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const ps = getComputedStyle(p);
      const overflows = [ps.overflowX, ps.overflowY];
      if (overflows.every((o) => o === 'visible')) continue;
      const pr = p.getBoundingClientRect();
      if (rect.right <= pr.left || rect.left >= pr.right || rect.bottom <= pr.top || rect.top >= pr.bottom) {
        return overflows.some((o) => o === 'auto' || o === 'scroll') ? 'scrolled away' : 'cut off';
      }
    }
    return undefined;
  };

  /** Text a person cannot read though its box is there: transparent, or set in a zero-size font. */
  const unreadable = (el: Element): boolean => {
    const style = getComputedStyle(el);
    return parseFloat(style.fontSize) === 0 || /^rgba\(.*,\s*0\)$/.test(style.color) || style.color === 'transparent';
  };

  /** A colour as a person names it, from a computed CSS colour (rgb(…) / rgba(…)); undefined when see-through. */
  const colourName = (css: string): string | undefined => {
    const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)/.exec(css);
    if (!m || (m[4] !== undefined && Number(m[4]) < 0.1)) return undefined;
    const [r, g, b] = [Number(m[1]) / 255, Number(m[2]) / 255, Number(m[3]) / 255];
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const light = (max + min) / 2;
    const sat = max === min ? 0 : (max - min) / (1 - Math.abs(2 * light - 1));
    if (sat < 0.2 || max - min < 0.08) return light < 0.15 ? 'black' : light > 0.9 ? 'white' : 'grey';
    const sector = max === r ? ((g - b) / (max - min)) % 6 : max === g ? (b - r) / (max - min) + 2 : (r - g) / (max - min) + 4;
    const hue = (sector * 60 + 360) % 360;
    if (hue < 15 || hue >= 345) return light < 0.3 ? 'dark red' : light > 0.75 ? 'pink' : 'red';
    if (hue < 40) return light < 0.35 ? 'brown' : 'orange';
    if (hue < 65) return 'yellow';
    if (hue < 165) return light < 0.25 ? 'dark green' : 'green';
    if (hue < 195) return 'teal';
    if (hue < 255) return light < 0.25 ? 'navy' : 'blue';
    if (hue < 290) return 'purple';
    return 'pink';
  };

  /** What an icon shows: its picture's file name, an icon font's class, a sprite's symbol. */
  const iconOf = (el: Element): string | undefined => {
    const fileName = (url: string) =>
      decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() ?? '')
        .replace(/\.(svg|png|gif|jpe?g|webp|ico)$/i, '')
        .replace(/^(icon|ic|fa|bi)[-_]/i, '')
        .replace(/[-_]+/g, ' ')
        .trim() || undefined;
    const img = el instanceof HTMLImageElement ? el : el.querySelector('img');
    if (img?.getAttribute('src') && !img.getAttribute('src')!.startsWith('data:')) return fileName(img.getAttribute('src')!);
    const use = el.querySelector('use');
    const href = use?.getAttribute('href') ?? use?.getAttribute('xlink:href');
    if (href) return fileName(href.replace(/^.*#/, ''));
    for (const node of [el, ...Array.from(el.querySelectorAll('i, span, svg'))].slice(0, 4)) {
      const cls = typeof node.className === 'string' ? node.className : (node.getAttribute('class') ?? '');
      const font = /\b(?:fa|bi|icon|glyphicon|ti|mdi|lucide|feather)-([a-z0-9-]+)/i.exec(cls);
      if (font && !/^(solid|regular|light|brands|lg|sm|xs|fw|\dx)$/.test(font[1]!)) return font[1]!.replace(/-/g, ' ');
      if (/material-(icons|symbols)/.test(cls) && node.textContent?.trim()) return node.textContent.trim().replace(/_/g, ' ');
    }
    const background = getComputedStyle(el).backgroundImage;
    const url = /url\(["']?([^"')]+)["']?\)/.exec(background)?.[1];
    if (url && !url.startsWith('data:')) return fileName(url);
    return undefined;
  };

  const SHAPES = new Set(['rect', 'circle', 'ellipse', 'path', 'polygon', 'polyline', 'line', 'text', 'g']);
  /** An element of an SVG drawing (a chart's bar, a map's region): named by its title, told by its colour. */
  const isShape = (el: Element) => el instanceof SVGElement && SHAPES.has(el.tagName.toLowerCase());

  /** The main colour of a thing without words: a shape's fill, a coloured box, an icon's ink. */
  const colourOf = (el: Element, icon: boolean): string | undefined => {
    const style = getComputedStyle(el);
    if (isShape(el)) return colourName(style.fill) ?? colourName(style.stroke);
    const background = colourName(style.backgroundColor);
    if (!icon || el instanceof HTMLImageElement) return background;
    // An icon's ink, not the button under it: an inline SVG's paint (often currentColor, so the text
    // colour), or an icon font's colour.
    const svg = el instanceof SVGSVGElement ? el : el.querySelector('svg');
    const paint = svg ? (colourName(getComputedStyle(svg).fill) ?? colourName(getComputedStyle(svg).stroke)) : undefined;
    return paint ?? colourName(style.color) ?? background;
  };

  const shorten = (s: string, n = 80) => {
    const t = s.replace(/\s+/g, ' ').trim();
    return t.length > n ? `${t.slice(0, n - 1)}…` : t;
  };

  const labelOf = (el: Element): string => {
    const aria = el.getAttribute('aria-label');
    if (aria) return aria;
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = labelledBy
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
      if (text.trim()) return text;
    }
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) {
      const label = el.labels?.[0]?.textContent;
      if (label) return label;
      if ('placeholder' in el && el.placeholder) return el.placeholder;
      // Never the options' or the field's own text: that is its value, not its name.
      return el.name || el.id || el.title || '';
    }
    if (el instanceof HTMLImageElement) return el.alt;
    if (el instanceof SVGElement) {
      const svgTitle = Array.from(el.children).find((c) => c.tagName.toLowerCase() === 'title')?.textContent;
      if (svgTitle?.trim()) return svgTitle;
      if (el.tagName.toLowerCase() !== 'text' && el.tagName.toLowerCase() !== 'g') return '';
    }
    const title = el.getAttribute('title');
    const text = (el as HTMLElement).innerText ?? el.textContent ?? '';
    if (text.trim()) return text;
    const img = el.querySelector('img[alt], svg[aria-label], [title]');
    return img?.getAttribute('alt') ?? img?.getAttribute('aria-label') ?? img?.getAttribute('title') ?? title ?? '';
  };

  const roleOf = (el: Element): string => {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'select') return 'select';
    if (tag === 'textarea') return 'textbox (multi-line)';
    if (tag === 'img') return 'image';
    if (el instanceof SVGElement && tag !== 'svg') return 'shape';
    if (tag === 'summary') return 'button';
    if (tag === 'svg') return 'image';
    if (tag === 'canvas') return 'canvas';
    if (tag === 'input') {
      const type = (el as HTMLInputElement).type;
      if (['checkbox', 'radio'].includes(type)) return type;
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (['date', 'time', 'datetime-local', 'month', 'week'].includes(type)) return `${type} input`;
      if (type === 'range') return 'slider';
      return type === 'text' ? 'textbox' : `textbox (${type})`;
    }
    if ((el as HTMLElement).isContentEditable) return 'rich text editor';
    return tag === 'button' ? 'button' : 'clickable';
  };

  const detailsOf = (el: Element): string[] => {
    const d: string[] = [];
    if (el instanceof HTMLInputElement) {
      if (el.type === 'checkbox' || el.type === 'radio') d.push(el.checked ? 'checked' : 'unchecked');
      // Never echo what is typed into a password field (one a "show password" toggle made text included,
      // by its autocomplete), nor a saved secret the vault typed (the mark of vault/secret-marks.ts).
      else if (el.type === 'password' || /\b(current|new)-password\b/.test(el.autocomplete))
        d.push(el.value ? 'filled' : 'empty');
      else if (el.hasAttribute('data-lazyboy-secret')) d.push(el.value ? 'value="•••"' : 'empty');
      else if (el.value) d.push(`value="${shorten(el.value, 60)}"`);
      if (el.placeholder && labelOf(el) !== el.placeholder) d.push(`placeholder="${shorten(el.placeholder, 40)}"`);
    } else if (el instanceof HTMLTextAreaElement && el.value) {
      d.push(`value="${shorten(el.value, 60)}"`);
    } else if (el instanceof HTMLSelectElement) {
      d.push(`selected="${shorten(el.selectedOptions[0]?.text ?? '', 40)}"`);
      d.push(
        `options: ${Array.from(el.options)
          .slice(0, 12)
          .map((o) => shorten(o.text, 24))
          .join(' | ')}${el.options.length > 12 ? ' | …' : ''}`,
      );
    } else if (el instanceof HTMLAnchorElement && el.getAttribute('href')) {
      d.push(`→ ${shorten(el.getAttribute('href') ?? '', 60)}`);
    }
    if (el instanceof HTMLInputElement && el.type === 'range') d.push(`min=${el.min || 0} max=${el.max || 100}`);
    if (el.getAttribute('role') === 'slider') {
      const [now, min, max] = ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].map((a) => el.getAttribute(a));
      if (now !== null) d.push(`value="${el.getAttribute('aria-valuetext') ?? now}"`);
      if (min !== null && max !== null) d.push(`min=${min} max=${max}`);
    }
    if ((el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true') d.push('disabled');
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement)) {
      const icon = iconOf(el);
      if (icon) d.push(`icon="${shorten(icon, 30)}"`);
      // A colour says something where words do not: a chart's bar, a status dot, an icon alone.
      if (isShape(el) || icon || !((el as HTMLElement).innerText ?? '').trim()) {
        const colour = colourOf(el, icon !== undefined || el.matches('svg') || el.querySelector('svg') !== null);
        if (colour) d.push(`colour=${colour}`);
      }
    }
    const cursor = getComputedStyle(el).cursor;
    if (el.getAttribute('draggable') === 'true' || cursor === 'grab' || cursor === 'move') d.push('draggable');
    if (el.getAttribute('aria-pressed')) d.push(`pressed=${el.getAttribute('aria-pressed')}`);
    if (el.getAttribute('aria-selected') === 'true' || el.classList.contains('selected')) d.push('selected');
    if (el.getAttribute('aria-expanded')) d.push(`expanded=${el.getAttribute('aria-expanded')}`);
    return d;
  };

  const CONTROLS = 'a[href], button, input, select, textarea';
  const ACTIONABLE_CURSORS = new Set(['pointer', 'grab', 'move']);
  /** A pointer cursor where its parent has none: the outermost element a page styled as clickable. */
  const pointerCursor = (el: Element): boolean => {
    const cursor = getComputedStyle(el).cursor;
    if (!ACTIONABLE_CURSORS.has(cursor)) return false;
    return !el.parentElement || getComputedStyle(el.parentElement).cursor !== cursor;
  };
  // Document order, what a selector calls interactive plus what a script or a style made so.
  const chosen: Element[] = [];
  const all = document.body ? document.body.getElementsByTagName('*') : document.getElementsByTagName('*');
  for (let i = 0; i < all.length && chosen.length < args.maxElements; i++) {
    const el = all[i]!;
    const native = el.matches(INTERACTIVE);
    if (!native && !listening?.has(el) && !pointerCursor(el)) continue;
    if (!visible(el)) continue;
    // A clickable wrapper around a control (a card around its link, a row around its checkbox): the control.
    if (!el.matches(CONTROLS) && (!native || el.matches('[onclick], [tabindex]')) && el.querySelector(CONTROLS)) continue;
    chosen.push(el);
  }

  // Elements gone from the document lose their entry (a long-lived app would otherwise keep every node it
  // ever rendered); their numbers are not given out again.
  for (const [id, el] of registry.byId) if (!el.isConnected) registry.byId.delete(id);
  const elements: ObservedElement[] = chosen.map((el) => {
    let id = registry.ids.get(el);
    if (id === undefined) {
      id = registry.nextId++;
      registry.ids.set(el, id);
    }
    registry.byId.set(id, el);
    const rect = el.getBoundingClientRect();
    const clipped = clippedBy(el);
    return {
      id,
      role: roleOf(el),
      name: shorten(labelOf(el)),
      details: detailsOf(el),
      box: { x: Math.round(rect.x), y: Math.round(rect.y), width: Math.round(rect.width), height: Math.round(rect.height) },
      surface: el.matches('canvas, svg, img, video, input[type=range], [role=slider], [role=application]'),
      inViewport: rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth,
      ...(clipped ? { clipped } : {}),
    };
  });

  // Only text a person can see: not in hidden, zero-size or clipped-away boxes, and not a select's option
  // list (the select itself is listed above with its choice).
  const visibility = new Map<Element, boolean>();
  const shown = (el: Element): boolean => {
    let known = visibility.get(el);
    if (known === undefined) {
      known =
        !el.closest('select, script, style, noscript, template') && visible(el) && clippedBy(el) !== 'cut off' && !unreadable(el);
      visibility.set(el, known);
    }
    return known;
  };
  const pieces: string[] = [];
  let length = 0;
  const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node && length <= args.maxTextChars; node = walker.nextNode()) {
    const value = node.nodeValue?.replace(/\s+/g, ' ').trim();
    const parent = node.parentElement;
    if (!value || !parent || !shown(parent)) continue;
    const block = getComputedStyle(parent).display !== 'inline';
    pieces.push(block ? `\n${value}` : ` ${value}`);
    length += value.length + 1;
  }
  const text = pieces
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return {
    generation,
    nextId: registry.nextId,
    url: location.href,
    title: document.title,
    elements,
    text: text.length > args.maxTextChars ? `${text.slice(0, args.maxTextChars)}\n[… more text below …]` : text,
    scroll: { y: Math.round(scrollY), height: document.documentElement.scrollHeight, viewportHeight: innerHeight },
  };
}

/**
 * Looks element `id` up in the page: `gone` for a number that was given out (by this document or, below
 * `nextId`, by an earlier one of the tab) whose element is no longer in the document, `unknown` for one
 * never given out.
 */
export function resolveInPage(args: { id: number; nextId: number }): { ok: true } | { ok: false; reason: 'gone' | 'unknown' } {
  const w = window as unknown as { __lazyboyElements?: ElementRegistry };
  const registry = w.__lazyboyElements;
  const el = registry?.byId.get(args.id);
  if (el?.isConnected) return { ok: true };
  return { ok: false, reason: args.id < Math.max(args.nextId, registry?.nextId ?? 0) ? 'gone' : 'unknown' };
}

/** The element numbered `id` (resolveInPage said it is there). */
export function elementInPage(id: number): Element {
  const w = window as unknown as { __lazyboyElements: ElementRegistry };
  return w.__lazyboyElements.byId.get(id)!;
}
