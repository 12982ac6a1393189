/// <reference lib="dom" />
// Runs inside the page: added as an init script for new documents and evaluated once in documents already
// open, so it must not close over anything (the rules arrive in `args`). It reports semantic events through
// the binding named in `args.binding`; secret values are decided here and never handed to the binding.

/** What the page sends; the worker validates it again (see events.ts) before it becomes a SemanticEvent. */
export interface RawElement {
  role: string;
  name: string;
  text: string;
  hint: string;
  tag: string;
  type: string;
  href?: string;
  /** Set by the page when the field is secret; the worker re-checks name and type itself. */
  secret?: 'password' | 'sensitive';
}

export type PagePayload =
  | { kind: 'click'; url: string; title: string; target: RawElement; checked?: boolean }
  | { kind: 'input'; url: string; title: string; target: RawElement; value: string | null }
  | { kind: 'select'; url: string; title: string; target: RawElement; label: string | null }
  | { kind: 'submit'; url: string; title: string; form: RawElement; submitter?: RawElement }
  | { kind: 'navigation'; url: string; title: string; spa: boolean };

export interface PageRecorderArgs {
  /** Name of the exposed binding on window. */
  binding: string;
  /** Name of the window property holding this document's recorder (for flush and detach). */
  key: string;
  /** Identifies the recording: a document already holding another recording's recorder replaces it. */
  token: string;
  /** A field's typing burst ends after this long without input (or on change / blur / submit). */
  quietMs: number;
  /** Report this document's arrival (false for documents that were already open at start). */
  announce: boolean;
  secretAutocomplete: string[];
  /** Sources of SECRET_NAME_PATTERNS. */
  secretPatterns: string[];
}

/** What the page keeps under window[args.key]. */
export interface PageRecorderHandle {
  token: string;
  /** Sends every pending typing burst and resolves once the worker has received everything sent so far. */
  flush(): Promise<void>;
  /** Flushes, then removes every listener, timer and patch; the page is left as it was. */
  stop(): Promise<void>;
}

export function installPageRecorder(args: PageRecorderArgs): void {
  const w = window as unknown as Record<string, unknown>;
  const previous = w[args.key] as PageRecorderHandle | undefined;
  if (previous?.token === args.token) return;
  // A leftover of an earlier recording whose stop could not reach this document (it was mid-navigation).
  if (previous) void previous.stop();

  const secretPatterns = args.secretPatterns.map((source) => new RegExp(source, 'u'));
  const everPassword = new WeakSet<Element>();
  const outstanding = new Set<Promise<unknown>>();
  const cleanups: Array<() => void> = [];
  let stopped = false;

  const send = (payload: PagePayload): Promise<unknown> => {
    if (stopped) return Promise.resolve();
    const binding = w[args.binding] as ((p: PagePayload) => Promise<unknown>) | undefined;
    if (typeof binding !== 'function') return Promise.resolve();
    const sent = binding(payload).catch(() => undefined);
    outstanding.add(sent);
    void sent.finally(() => outstanding.delete(sent));
    return sent;
  };
  const here = () => ({ url: location.href, title: document.title });
  const on = (target: EventTarget, type: string, listener: (event: Event) => void) => {
    target.addEventListener(type, listener, true);
    cleanups.push(() => target.removeEventListener(type, listener, true));
  };

  // ---- describing controls (the vocabulary of browser/page-script.ts) ----
  const shorten = (s: string, n = 80) => {
    const t = s.replace(/\s+/g, ' ').trim();
    return t.length > n ? `${t.slice(0, n - 1)}…` : t;
  };
  const isField = (el: Element): el is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement =>
    el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;
  /** The first label's own words: a label wrapping its control would otherwise include a select's options. */
  const labelText = (el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement): string => {
    const label = el.labels?.[0];
    if (!label) return '';
    const copy = label.cloneNode(true) as HTMLElement;
    for (const inner of Array.from(copy.querySelectorAll('input, select, textarea'))) inner.remove();
    return copy.textContent ?? '';
  };
  const labelOf = (el: Element): string => {
    const aria = el.getAttribute('aria-label');
    if (aria) return aria;
    // A form's text is all its labels and buttons: only its own name says which form it is.
    if (el instanceof HTMLFormElement) return el.getAttribute('name') || el.id || el.title || '';
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = labelledBy
        .split(/\s+/)
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
      if (text.trim()) return text;
    }
    if (isField(el)) {
      const label = labelText(el);
      if (label.trim()) return label;
      if ('placeholder' in el && el.placeholder) return el.placeholder;
      // Never the field's own text: that is its value, not its name.
      return el.name || el.id || el.title || '';
    }
    if (el instanceof HTMLImageElement) return el.alt;
    const text = (el as HTMLElement).innerText ?? el.textContent ?? '';
    if (text.trim()) return text;
    const img = el.querySelector('img[alt], svg[aria-label], [title]');
    return (
      img?.getAttribute('alt') ?? img?.getAttribute('aria-label') ?? img?.getAttribute('title') ?? el.getAttribute('title') ?? ''
    );
  };
  const TEXT_TYPES = ['', 'text', 'email', 'search', 'url', 'tel', 'number', 'password'];
  const isTextEntry = (el: Element): boolean =>
    (el instanceof HTMLInputElement && TEXT_TYPES.includes(el.type)) ||
    el instanceof HTMLTextAreaElement ||
    (el as HTMLElement).isContentEditable === true;
  const roleOf = (el: Element): string => {
    const explicit = el.getAttribute('role');
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'select') return 'select';
    if (tag === 'summary' || tag === 'button') return 'button';
    if (el instanceof HTMLInputElement) {
      if (['checkbox', 'radio'].includes(el.type)) return el.type;
      if (['submit', 'button', 'reset', 'image'].includes(el.type)) return 'button';
      if (TEXT_TYPES.includes(el.type)) return el.type === 'number' ? 'spinbutton' : 'textbox';
      return `${el.type} input`;
    }
    if (isTextEntry(el)) return 'textbox';
    return tag === 'form' ? 'form' : 'clickable';
  };
  const hintOf = (el: Element): string => {
    const testId = el.getAttribute('data-testid') ?? el.getAttribute('data-test-id') ?? el.getAttribute('data-test');
    if (testId) return `[data-testid="${testId}"]`;
    // Framework-generated ids (":r3:", "input-1234") change between visits: no use as a hint.
    if (el.id && !/\d{3,}|:/.test(el.id)) return `#${CSS.escape(el.id)}`;
    const name = el.getAttribute('name');
    if (name) return `${el.tagName.toLowerCase()}[name="${name}"]`;
    const aria = el.getAttribute('aria-label');
    return aria ? `[aria-label="${aria}"]` : '';
  };
  const secretOf = (el: Element): 'password' | 'sensitive' | undefined => {
    if (el instanceof HTMLInputElement && el.type === 'password') everPassword.add(el);
    if (everPassword.has(el)) return 'password';
    const tokens = (el.getAttribute('autocomplete') ?? '').toLowerCase().split(/\s+/);
    if (tokens.includes('current-password') || tokens.includes('new-password')) return 'password';
    if (tokens.some((t) => args.secretAutocomplete.includes(t))) return 'sensitive';
    const words = (s: string | null | undefined) =>
      (s ?? '')
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .replace(/[_\-.:[\]/]+/g, ' ')
        .toLowerCase();
    const names = [
      el.getAttribute('name'),
      el.id,
      el.getAttribute('aria-label'),
      isField(el) ? labelText(el) : '',
      el.getAttribute('placeholder'),
      el.getAttribute('title'),
    ];
    return names.some((n) => n && secretPatterns.some((p) => p.test(words(n)))) ? 'sensitive' : undefined;
  };
  const describe = (el: Element): RawElement => {
    const role = roleOf(el);
    const name = shorten(labelOf(el));
    const quiet = isField(el) || isTextEntry(el) || el instanceof HTMLFormElement;
    const text = quiet ? '' : shorten((el as HTMLElement).innerText ?? '', 120);
    const raw: RawElement = {
      role,
      name,
      text: text === name ? '' : text,
      hint: hintOf(el),
      tag: el.tagName.toLowerCase(),
      type: el instanceof HTMLInputElement ? el.type : '',
    };
    if (el instanceof HTMLAnchorElement && el.getAttribute('href')) raw.href = el.href;
    const secret = secretOf(el);
    if (secret) raw.secret = secret;
    return raw;
  };

  // ---- typing: one event per burst, with the final value ----
  const pending = new Map<Element, number>();
  const lastSent = new WeakMap<Element, string>();
  const flushField = (el: Element): Promise<unknown> => {
    const timer = pending.get(el);
    if (timer !== undefined) clearTimeout(timer);
    pending.delete(el);
    const target = describe(el);
    if (target.secret) {
      // Whether it is empty is all that is read from a secret field.
      const filled = isField(el) ? el.value !== '' : (el.textContent ?? '') !== '';
      const state = filled ? 'filled' : 'empty';
      if (lastSent.get(el) === state) return Promise.resolve();
      lastSent.set(el, state);
      return filled ? send({ kind: 'input', ...here(), target, value: null }) : Promise.resolve();
    }
    let value: string;
    if (el instanceof HTMLInputElement && el.type === 'file') {
      value = Array.from(el.files ?? [])
        .map((f) => f.name)
        .join(', ');
    } else {
      value = isField(el) ? el.value : ((el as HTMLElement).innerText ?? '');
    }
    if (lastSent.get(el) === value) return Promise.resolve();
    lastSent.set(el, value);
    return send({ kind: 'input', ...here(), target, value });
  };
  const flushAll = () => Promise.all(Array.from(pending.keys()).map(flushField));
  const fieldOf = (event: Event): Element | null => {
    const el = event.composedPath()[0];
    if (!(el instanceof Element)) return null;
    if (isTextEntry(el)) return el.closest('[contenteditable=""], [contenteditable=true]') ?? el;
    return null;
  };

  on(document, 'input', (event) => {
    const el = fieldOf(event);
    if (!el) return;
    const timer = pending.get(el);
    if (timer !== undefined) clearTimeout(timer);
    pending.set(
      el,
      window.setTimeout(() => void flushField(el), args.quietMs),
    );
  });
  on(document, 'focusout', (event) => {
    const el = fieldOf(event);
    if (el && pending.has(el)) void flushField(el);
  });
  on(document, 'change', (event) => {
    const el = event.composedPath()[0];
    if (!(el instanceof Element)) return;
    if (el instanceof HTMLSelectElement) {
      const target = describe(el);
      const label = target.secret
        ? null
        : Array.from(el.selectedOptions)
            .map((o) => shorten(o.label || o.text))
            .join(', ');
      void send({ kind: 'select', ...here(), target, label });
    } else if (isTextEntry(el)) {
      void flushField(el);
    } else if (el instanceof HTMLInputElement && !['checkbox', 'radio', 'submit', 'button', 'reset', 'image'].includes(el.type)) {
      // date, time, colour, range, file: the final choice.
      void flushField(el);
    }
  });

  // ---- clicks on controls ----
  const CONTROL =
    'a[href], button, input, select, textarea, summary, label, [role=button], [role=link], [role=checkbox], [role=radio], ' +
    '[role=tab], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=switch], [role=treeitem], [onclick]';
  on(document, 'click', (event) => {
    // Scripted clicks (el.click()) are the page's doing, not the person's.
    if (!event.isTrusted) return;
    const start = event.composedPath()[0];
    if (!(start instanceof Element)) return;
    let el: Element | null = start.closest(CONTROL);
    if (!el) {
      // Div-based buttons: something nearby that looks clickable.
      for (let p: Element | null = start, depth = 0; p && depth < 4 && !el; p = p.parentElement, depth += 1) {
        if (getComputedStyle(p).cursor === 'pointer') el = p;
      }
    }
    if (!el) return;
    // A label passes the click on to its control, which reports it itself.
    if (el instanceof HTMLLabelElement && el.control) return;
    // Clicking into a field is part of typing into it (or of choosing in a select).
    if (isTextEntry(el) || el instanceof HTMLSelectElement || el instanceof HTMLOptionElement) return;
    const target = describe(el);
    const payload: PagePayload = { kind: 'click', ...here(), target };
    if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) payload.checked = el.checked;
    else if (el.getAttribute('aria-checked')) payload.checked = el.getAttribute('aria-checked') === 'true';
    void send(payload);
  });

  on(document, 'submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    // What was typed belongs before the submit.
    void flushAll();
    const submitter = (event as SubmitEvent).submitter;
    const payload: PagePayload = { kind: 'submit', ...here(), form: describe(form) };
    if (submitter) payload.submitter = describe(submitter);
    void send(payload);
  });
  on(window, 'pagehide', () => void flushAll());

  // ---- arrivals: this document, and same-document (SPA) changes ----
  let lastUrl = location.href;
  let announced = !args.announce;
  const announce = () => {
    if (announced) return;
    announced = true;
    lastUrl = location.href;
    void send({ kind: 'navigation', ...here(), spa: false });
  };
  if (!announced) {
    on(window, 'load', announce);
    // A page whose load never ends (a hanging image) still counts as arrived a while after its DOM is ready.
    on(document, 'DOMContentLoaded', () => {
      const timer = window.setTimeout(announce, 5_000);
      cleanups.push(() => clearTimeout(timer));
    });
  }
  let spaTimer: number | undefined;
  const spaChanged = () => {
    if (spaTimer !== undefined) clearTimeout(spaTimer);
    // Routers set the title after they render.
    spaTimer = window.setTimeout(() => {
      spaTimer = undefined;
      if (location.href === lastUrl) return;
      lastUrl = location.href;
      void send({ kind: 'navigation', ...here(), spa: true });
    }, 150);
  };
  cleanups.push(() => clearTimeout(spaTimer));
  on(window, 'popstate', spaChanged);
  on(window, 'hashchange', spaChanged);
  const originalPush = history.pushState;
  const originalReplace = history.replaceState;
  const push: typeof history.pushState = function (this: History, ...rest) {
    originalPush.apply(this, rest);
    spaChanged();
  };
  const replace: typeof history.replaceState = function (this: History, ...rest) {
    originalReplace.apply(this, rest);
    spaChanged();
  };
  history.pushState = push;
  history.replaceState = replace;
  cleanups.push(() => {
    // Only undo our own patch: a library may have wrapped ours since.
    if (history.pushState === push) history.pushState = originalPush;
    if (history.replaceState === replace) history.replaceState = originalReplace;
  });

  const flush = async () => {
    await flushAll();
    await Promise.all(Array.from(outstanding));
  };
  const handle: PageRecorderHandle = {
    token: args.token,
    flush,
    stop: async () => {
      if (stopped) return;
      await flush();
      stopped = true;
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
      for (const cleanup of cleanups.splice(0)) cleanup();
      if (w[args.key] === handle) delete w[args.key];
    },
  };
  Object.defineProperty(window, args.key, { value: handle, configurable: true, enumerable: false, writable: true });
}
