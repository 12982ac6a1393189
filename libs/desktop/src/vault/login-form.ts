/// <reference lib="dom" />
import type { LoginFieldKind, LoginFillRefusal, LoginFillResponse } from '@lazyboy/contracts';
import type { ElementHandle, Frame, JSHandle, Page } from 'playwright-core';
import { inspectLoginPage, type FoundFields, type LoginPageQuery, type PageReport } from './login-page-script.js';
import { loginSiteOf, mayFillLogin } from './login-site.js';
import { markSecretField } from './secret-marks.js';
import { SCRUBBED_SECRET, SCRUBBED_USERNAME, withoutValues, type ScrubbedValue } from './secret-scrub.js';
import { settleAfter } from './submit-settle.js';

/** A login as the vault hands it to one fill: typed into the page, never kept. */
export type SavedLogin =
  { step: 'password'; site: string; username: string; password: string } | { step: 'totp'; site: string; code: string };

/** The worker's answer without its slot. */
export type LoginFillOutcome = Omit<LoginFillResponse, 'slot'>;

export interface LoginFillOptions {
  /** How long a submit may take to settle, and a password field to appear after the username. Default 10 s. */
  stepTimeoutMs?: number;
}

/**
 * A fill that failed in the browser (the tab closed, a field went away while typing). Its message is
 * scrubbed of the values and carries no cause: whoever logs it logs no secret.
 */
export class LoginFillError extends Error {
  override readonly name = 'LoginFillError';

  constructor(
    message: string,
    /** The browser or the tab went away (the connection is worth dropping). */
    readonly browserGone: boolean,
  ) {
    super(message);
  }
}

const DEFAULT_STEP_TIMEOUT_MS = 10_000;
/** The contract's bound on the page's error text (loginFillResponseSchema). */
const PAGE_ERROR_MAX = 300;
/** How long typing into one field, or clicking the submit button, may wait for it to be ready. */
const FIELD_TIMEOUT_MS = 5_000;

/**
 * Fills a saved login into `page` (the slot's active tab) and submits it. The page's site is checked
 * first and nothing is touched on another one; fields are only looked for in frames on the account's site
 * (a frame of another site, or inside one, never receives a value). Values go in as CDP text input into the
 * focused field (the page's scripts see real input events) and are never read back; the fields that got a
 * password or code are marked (secret-marks.ts) so no screenshot shows them while their text is visible.
 */
export async function fillLogin(page: Page, login: SavedLogin, options: LoginFillOptions = {}): Promise<LoginFillOutcome> {
  const scrub = scrubbedValues(login);
  try {
    const outcome = await new LoginFill(page, login, options.stepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS).run();
    return {
      ...outcome,
      url: withoutValues(outcome.url, scrub),
      title: withoutValues(outcome.title, scrub),
      pageError: outcome.pageError === null ? null : cut(withoutValues(outcome.pageError, scrub), PAGE_ERROR_MAX),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const first = (message.split('\n')[0] ?? '').slice(0, 300);
    throw new LoginFillError(
      withoutValues(first, scrub),
      /has been closed|Target closed|Browser closed|disconnected/i.test(message),
    );
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function scrubbedValues(login: SavedLogin): ScrubbedValue[] {
  if (login.step === 'totp') return [{ value: login.code, placeholder: SCRUBBED_SECRET }];
  return [
    { value: login.password, placeholder: SCRUBBED_SECRET },
    { value: login.username, placeholder: SCRUBBED_USERNAME },
  ];
}

/** Handles to the fields one frame offered, kept for this call only. */
interface FrameFields {
  frame: Frame;
  password: ElementHandle | null;
  username: ElementHandle | null;
  codes: ElementHandle[];
  submit: ElementHandle | null;
}

class LoginFill {
  private readonly filled: LoginFieldKind[] = [];
  private readonly handles: JSHandle[] = [];

  constructor(
    private readonly page: Page,
    private readonly login: SavedLogin,
    private readonly stepTimeoutMs: number,
  ) {}

  async run(): Promise<LoginFillOutcome> {
    try {
      // Before anything else, and without touching the page: is it on the account's site at all?
      if (!mayFillLogin(this.login.site, this.page.url())) return await this.refused('wrong_site', false);
      return this.login.step === 'password' ? await this.password(this.login) : await this.code(this.login.code);
    } finally {
      await Promise.all(this.handles.map((handle) => handle.dispose().catch(() => undefined)));
    }
  }

  private async password(login: Extract<SavedLogin, { step: 'password' }>): Promise<LoginFillOutcome> {
    const form = await this.find('login', (f) => f.password !== null || f.username !== null);
    if (!form) return this.refused('no_login_form');
    if (form.password) {
      if (form.username) await this.type(form.username, login.username, 'username');
      await this.type(form.password, login.password, 'password');
      await this.submit(form.frame, form.submit, form.password);
      return this.report(1);
    }
    // The username alone: its page (or step) first, then the password on the next one.
    const username = form.username!;
    const errorBefore = await this.pageReport().then((r) => r.error);
    await this.type(username, login.username, 'username');
    await this.submit(form.frame, form.submit, username);
    await this.nextStep(form.frame, errorBefore);
    // The next page may be another site's (a company's single sign-on): its password field is not ours.
    if (!mayFillLogin(login.site, this.page.url())) return this.report(1);
    const second = await this.find('login', (f) => f.password !== null);
    if (!second?.password) return this.report(1);
    if (second.username && (await isEmpty(second.username))) await this.type(second.username, login.username, 'username');
    await this.type(second.password, login.password, 'password');
    await this.submit(second.frame, second.submit, second.password);
    return this.report(2);
  }

  private async code(code: string): Promise<LoginFillOutcome> {
    const form = await this.find('code', (f) => f.codes.length > 0);
    if (!form) return this.refused('no_code_field');
    const boxes = form.codes;
    const last = boxes.at(-1)!;
    // Many code forms send themselves once the last digit is in: a second submit would spend the code twice.
    await watchSubmit(last);
    if (boxes.length === 1) {
      await this.type(last, code, 'code');
    } else if (boxes.length === code.length) {
      // One digit a box, each focused in turn: this does not depend on the widget moving the focus on.
      for (const [index, box] of boxes.entries()) await this.type(box, code[index]!, 'code');
    } else {
      // A row of another length: typed key by key from the first box, as a person would, the widget spreading it.
      for (const box of boxes) await markSecretField(box);
      await this.type(boxes[0]!, code, 'code', 'keys');
    }
    if (await submittedItself(last)) {
      await settleAfter(this.page, async () => undefined, this.stepTimeoutMs);
    } else {
      await this.submit(form.frame, form.submit, last);
    }
    return this.report(1);
  }

  /** The first frame on the account's site whose fields `wanted` accepts, main frame first. */
  private async find(op: 'login' | 'code', wanted: (fields: FrameFields) => boolean): Promise<FrameFields | null> {
    let fallback: FrameFields | null = null;
    for (const frame of fillableFrames(this.page, this.login.site)) {
      const fields = await this.fieldsIn(frame, { op });
      if (!fields) continue;
      if (wanted(fields)) {
        // A form with a password anywhere beats a username-only one found first.
        if (op === 'code' || fields.password) return fields;
        fallback ??= fields;
      }
    }
    return fallback;
  }

  private async fieldsIn(frame: Frame, query: LoginPageQuery): Promise<FrameFields | null> {
    try {
      const root = (await frame.evaluateHandle(inspectLoginPage, query)) as JSHandle<FoundFields>;
      this.handles.push(root);
      // Checked again where the handles live: the frame may have moved on between its URL and this document.
      const where = await root.evaluate((found) => [found.href, ...found.ancestors]);
      if (!where.every((url) => mayFillLogin(this.login.site, url))) return null;
      const element = async (name: 'password' | 'username' | 'submit') => {
        const handle = await root.getProperty(name);
        this.handles.push(handle);
        return handle.asElement();
      };
      const list = await root.getProperty('codes');
      this.handles.push(list);
      const codes = [...(await list.getProperties()).entries()]
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, handle]) => (this.handles.push(handle), handle.asElement()))
        .filter((handle): handle is ElementHandle => handle !== null);
      return {
        frame,
        password: await element('password'),
        username: await element('username'),
        submit: await element('submit'),
        codes,
      };
    } catch {
      return null; // the frame navigated or went away meanwhile: its fields are not this document's
    }
  }

  /**
   * Replaces the field's text with `value`: focus, select what is there, then CDP's Input.insertText, the
   * way an input method commits text (beforeinput and input events, which frameworks listen to), or key
   * by key with `keys`. Not Playwright's fill, whose call log quotes the value it types.
   */
  private async type(field: ElementHandle, value: string, kind: LoginFieldKind, via: 'text' | 'keys' = 'text'): Promise<void> {
    await field.scrollIntoViewIfNeeded({ timeout: FIELD_TIMEOUT_MS }).catch(() => undefined);
    await field.focus();
    await field.evaluate((el) => {
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) el.select();
    });
    if (kind !== 'username') await markSecretField(field);
    // Keys go to whatever has the focus: a frame of another site that took it (an ad's autofocus) gets nothing.
    if (!(await holdsFocus(field)))
      throw new LoginFillError(`the ${kind} field lost the focus before typing; nothing was typed`, false);
    if (via === 'keys') await this.page.keyboard.type(value);
    else await this.page.keyboard.insertText(value);
    if (!this.filled.includes(kind)) this.filled.push(kind);
  }

  /** Clicks the form's submit button (Enter in the field without one) and waits for the page to settle. */
  private async submit(frame: Frame, button: ElementHandle | null, field: ElementHandle): Promise<void> {
    await settleAfter(
      this.page,
      async () => {
        if (button) {
          const clicked = await button.click({ timeout: FIELD_TIMEOUT_MS }).then(
            () => true,
            () => false,
          );
          if (clicked) return;
        }
        // Enter only into the field's own document: if it is gone, the page moved on by itself, and a key
        // pressed now would land on whatever page came next.
        if (frame.isDetached() || !(await holdsFocusAgain(field))) return;
        await this.page.keyboard.press('Enter');
      },
      this.stepTimeoutMs,
    );
  }

  /** After a username: waits until the page offers a password or code field, or shows a new error. */
  private async nextStep(frame: Frame, errorBefore: string | null): Promise<void> {
    const target = frame.isDetached() ? this.page.mainFrame() : frame;
    // waitForFunction starts again in each new document of the frame, so a second page is waited for too.
    await target
      .waitForFunction(inspectLoginPage, { op: 'next-step', errorBefore } as LoginPageQuery, {
        timeout: this.stepTimeoutMs,
        polling: 100,
      })
      .catch(() => undefined);
  }

  private async pageReport(): Promise<PageReport> {
    const frames = [this.page.mainFrame(), ...fillableFrames(this.page, this.login.site)];
    const reports = await Promise.all(
      [...new Set(frames)].map((frame) =>
        frame.evaluate(inspectLoginPage, { op: 'report' } as LoginPageQuery).then(
          (report) => report as PageReport,
          () => ({ error: null, asksForCode: false }),
        ),
      ),
    );
    const error = reports.map((r) => r.error).find((e) => e !== null) ?? null;
    return { error, asksForCode: reports.some((r) => r.asksForCode) };
  }

  private async report(pages: number): Promise<LoginFillOutcome> {
    const { error, asksForCode } = await this.pageReport();
    return { outcome: 'submitted', ...(await this.where()), filled: [...this.filled], pages, pageError: error, asksForCode };
  }

  /** A refusal says where the page is; on the wrong site nothing of the page is read but its address and title. */
  private async refused(refusal: LoginFillRefusal, readPage = true): Promise<LoginFillOutcome> {
    const { error, asksForCode } = readPage ? await this.pageReport() : { error: null, asksForCode: false };
    return { outcome: 'refused', refusal, ...(await this.where()), filled: [], pages: 0, pageError: error, asksForCode };
  }

  private async where(): Promise<{ url: string; title: string; pageSite: string }> {
    const url = this.page.url();
    return { url, title: await this.page.title().catch(() => ''), pageSite: loginSiteOf(url) ?? '' };
  }
}

/** The frames a value may go into: the frame and every frame around it on the account's site. */
function fillableFrames(page: Page, site: string): Frame[] {
  return page.frames().filter((frame) => {
    for (let at: Frame | null = frame; at; at = at.parentFrame()) if (!mayFillLogin(site, at.url())) return false;
    return true;
  });
}

async function isEmpty(field: ElementHandle): Promise<boolean> {
  return field.evaluate((el) => !(el instanceof HTMLInputElement) || el.value === '').catch(() => false);
}

/**
 * Whether `field` has the keyboard focus: it is its document's active element, and every frame element on
 * the way up is its parent document's, so that typed text reaches this field and no other frame.
 */
async function holdsFocus(field: ElementHandle): Promise<boolean> {
  const active = await field.evaluate((el) => el.ownerDocument?.activeElement === el).catch(() => false);
  if (!active) return false;
  let frame = await field.ownerFrame();
  for (let parent = frame?.parentFrame(); frame && parent; frame = parent, parent = parent.parentFrame()) {
    const element = await frame.frameElement().catch(() => null);
    if (!element) return false;
    const focused = await element.evaluate((el) => el.ownerDocument?.activeElement === el).catch(() => false);
    await element.dispose();
    if (!focused) return false;
  }
  return true;
}

/** Focuses the field again (still in its document) and says whether it has the focus. */
async function holdsFocusAgain(field: ElementHandle): Promise<boolean> {
  const connected = await field.evaluate((el) => el.isConnected).catch(() => false);
  if (!connected) return false;
  await field.focus().catch(() => undefined);
  return holdsFocus(field);
}

/** Notes on the field whether its form is submitted (by a script, by the widget) from now on. */
async function watchSubmit(field: ElementHandle): Promise<void> {
  await field
    .evaluate((el) => {
      const form = (el as HTMLInputElement).form;
      const mark = () => (el as Element).setAttribute('data-lazyboy-submitted', '');
      form?.addEventListener('submit', mark, { once: true, capture: true });
    })
    .catch(() => undefined);
}

/** Whether the code form went off by itself: submitted, its field gone or disabled (a widget sending it). */
async function submittedItself(field: ElementHandle): Promise<boolean> {
  return field
    .evaluate(
      (el) =>
        !el.isConnected || (el as Element).hasAttribute('data-lazyboy-submitted') || (el as HTMLInputElement).disabled === true,
    )
    .catch(() => true);
}
