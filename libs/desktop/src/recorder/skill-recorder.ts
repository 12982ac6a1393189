import { randomBytes } from 'node:crypto';
import { type Browser, type BrowserContext, type Disposable, type Page } from 'playwright-core';
import { RecorderAttachError, RecorderStateError } from './errors.js';
import { eventFromPage } from './events.js';
import { KeyFrameSampler, type FrameSource, type SamplerProgress } from './frames.js';
import { installPageRecorder, type PageRecorderArgs, type PageRecorderHandle } from './page-recorder.js';
import { SECRET_AUTOCOMPLETE, SECRET_NAME_PATTERNS, scrubUrl } from './secret-fields.js';
import type { Recording, SemanticEvent } from './types.js';

export interface SkillRecorderOptions {
  /** Where key frames come from (usually `displayFrameSource(manager, slot)`); without one, no frames. */
  frames?: FrameSource;
  /** How often the screen signature is polled. */
  sampleIntervalMs?: number;
  maxFrames?: number;
  /** See KeyFrameSamplerOptions.minDifference. */
  minFrameDifference?: number;
  /** Delay between a page's load and its navigation frame. */
  navigationSettleMs?: number;
  /** A typing burst ends after this long without a keystroke (or on change, blur, submit). */
  inputQuietMs?: number;
  /** How long stop() waits for a page to hand over its last events (a page showing alert() cannot answer). */
  pageStopTimeoutMs?: number;
  /** Operational notes only: never values, events or URLs. */
  log?: (line: string) => void;
}

export interface RecorderProgress extends SamplerProgress {
  recording: boolean;
  events: number;
}

const PAGE_KEY = '__lazyboyRecorder';

interface Session {
  goal: string;
  startedAt: number;
  token: string;
  events: SemanticEvent[];
  sampler: KeyFrameSampler | undefined;
  disposables: Disposable[];
  tabs: Map<Page, { tab: number; url: string; onClose: () => void }>;
  onPage: (page: Page) => void;
  args: PageRecorderArgs;
}

/**
 * Records a person's demonstration in a Chromium: semantic events (which control, what was typed, which page)
 * from a script in every page, and key frames only when the screen changed. Secret fields are recorded as
 * "filled", never with their value (secret-fields.ts).
 */
export class SkillRecorder {
  private session: Session | undefined;
  private nextTab = 1;
  private readonly tabIds = new WeakMap<Page, number>();

  /**
   * A recorder on a CDP client of its own (`() => manager.connectBrowser(slot)`), in the browser's default
   * context. The client belongs to the recorder: stop() disconnects it (Chromium keeps running), so it
   * records once.
   */
  static async overCdp(connect: () => Promise<Browser>, options: SkillRecorderOptions = {}): Promise<SkillRecorder> {
    let browser: Browser;
    try {
      browser = await connect();
    } catch (error) {
      throw new RecorderAttachError(`cannot reach the browser: ${(error as Error).message}`);
    }
    const context = browser.contexts()[0];
    if (!context) {
      await browser.close();
      throw new RecorderAttachError('the browser has no default context');
    }
    return new SkillRecorder(context, options, browser);
  }

  constructor(
    readonly context: BrowserContext,
    private readonly options: SkillRecorderOptions = {},
    private ownedBrowser?: Browser,
  ) {}

  get recording(): boolean {
    return this.session !== undefined;
  }

  progress(): RecorderProgress {
    const session = this.session;
    const frames = session?.sampler?.progress() ?? { samples: 0, frames: 0, framesDropped: 0, errors: 0 };
    return { recording: session !== undefined, events: session?.events.length ?? 0, ...frames };
  }

  /** The events so far (a copy), for a live view of the demonstration. */
  eventsSoFar(): SemanticEvent[] {
    return [...(this.session?.events ?? [])];
  }

  async start({ goal }: { goal: string }): Promise<void> {
    if (this.session) throw new RecorderStateError('already recording; stop first');
    if (this.ownedBrowser && !this.ownedBrowser.isConnected()) {
      throw new RecorderStateError('this recorder has already recorded once over its own connection; make a new one');
    }
    const token = randomBytes(8).toString('hex');
    const args: PageRecorderArgs = {
      // Unguessable, so the page's own scripts cannot easily forge events.
      binding: `__lazyboyRecord_${token}`,
      key: PAGE_KEY,
      token,
      quietMs: this.options.inputQuietMs ?? 1_000,
      announce: true,
      secretAutocomplete: [...SECRET_AUTOCOMPLETE],
      secretPatterns: SECRET_NAME_PATTERNS.map((pattern) => pattern.source),
    };
    const startedAt = Date.now();
    const session: Session = {
      goal,
      startedAt,
      token,
      events: [],
      sampler: undefined,
      disposables: [],
      tabs: new Map(),
      onPage: (page) => this.attachPage(session, page),
      args,
    };
    this.session = session;
    try {
      session.disposables.push(
        await this.context.exposeBinding(args.binding, (source, payload: unknown) => this.receive(session, source.page, payload)),
      );
      session.disposables.push(await this.context.addInitScript(installPageRecorder, args));
      this.context.on('page', session.onPage);
      for (const page of this.context.pages()) {
        this.attachPage(session, page, await page.title().catch(() => ''));
        await page.evaluate(installPageRecorder, { ...args, announce: false }).catch(() => undefined);
      }
      if (this.options.frames) {
        session.sampler = new KeyFrameSampler(this.options.frames, {
          intervalMs: this.options.sampleIntervalMs ?? 1_500,
          maxFrames: this.options.maxFrames ?? 60,
          minDifference: this.options.minFrameDifference ?? 0.75,
          settleMs: this.options.navigationSettleMs ?? 250,
          startedAt,
          lastSeq: () => session.events.length,
          onError: (error) => this.options.log?.(`key frame failed: ${(error as Error).message}`),
        });
        await session.sampler.start();
      }
    } catch (error) {
      await this.detach(session);
      this.session = undefined;
      throw error;
    }
  }

  /** Ends the recording: collects the pages' last typing, removes every script, listener and timer. */
  async stop(): Promise<Recording> {
    const session = this.session;
    if (!session) throw new RecorderStateError('not recording');
    // The pages hand over pending typing while the session still accepts events.
    await Promise.all(Array.from(session.tabs.keys()).map((page) => this.stopPage(page)));
    this.session = undefined;
    await this.detach(session);
    if (this.ownedBrowser) {
      // Connected over CDP, close() only disconnects: the desktop's Chromium keeps running.
      await this.ownedBrowser.close().catch(() => undefined);
    }
    return {
      goal: session.goal,
      startedAt: new Date(session.startedAt).toISOString(),
      endedAt: new Date().toISOString(),
      events: session.events,
      frames: session.sampler?.frames ?? [],
      framesDropped: session.sampler?.progress().framesDropped ?? 0,
    };
  }

  private async detach(session: Session): Promise<void> {
    this.context.off('page', session.onPage);
    for (const [page, { onClose }] of session.tabs) page.off('close', onClose);
    await session.sampler?.stop();
    for (const disposable of session.disposables.splice(0).reverse()) await disposable.dispose().catch(() => undefined);
  }

  private async stopPage(page: Page): Promise<void> {
    if (page.isClosed()) return;
    const key = PAGE_KEY;
    const stopAll = Promise.all(
      page
        .frames()
        .map((frame) =>
          frame
            .evaluate((k) => (window as unknown as Record<string, PageRecorderHandle | undefined>)[k]?.stop(), key)
            .catch(() => undefined),
        ),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.pageStopTimeoutMs ?? 3_000)));
    await Promise.race([stopAll, timeout]);
    clearTimeout(timer);
  }

  /** A tab seen at start (with its title: it counts as the demonstration's first page) or opened since. */
  private attachPage(session: Session, page: Page, initialTitle?: string): void {
    if (session.tabs.has(page)) return;
    let tab = this.tabIds.get(page);
    if (tab === undefined) {
      tab = this.nextTab++;
      this.tabIds.set(page, tab);
    }
    const onClose = () => this.add(session, page, (stamp) => ({ kind: 'tab', ...stamp, action: 'closed' }));
    session.tabs.set(page, { tab, url: page.url(), onClose });
    page.on('close', onClose);
    if (initialTitle === undefined) this.add(session, page, (stamp) => ({ kind: 'tab', ...stamp, action: 'opened' }));
    else this.add(session, page, (stamp) => ({ kind: 'navigation', ...stamp, title: initialTitle, initial: true, spa: false }));
  }

  private async receive(session: Session, page: Page, payload: unknown): Promise<void> {
    if (this.session !== session) return;
    const event = this.add(session, page, (stamp) => eventFromPage(payload, stamp));
    if (event?.kind === 'navigation') session.sampler?.requestFrame('navigation');
  }

  private add(
    session: Session,
    page: Page,
    make: (stamp: { seq: number; at: string; offsetMs: number; tab: number; url: string; title: string }) => SemanticEvent | null,
  ): SemanticEvent | null {
    if (this.session !== session) return null;
    const now = Date.now();
    const info = session.tabs.get(page);
    const event = make({
      seq: session.events.length + 1,
      at: new Date(now).toISOString(),
      offsetMs: now - session.startedAt,
      tab: info?.tab ?? this.tabIds.get(page) ?? 0,
      url: scrubUrl(page.url()),
      title: '',
    });
    if (!event) return null;
    if (event.kind === 'navigation' && info) {
      // Routers that replaceState the same address over and over are not going anywhere.
      if (event.spa && event.url === info.url) return null;
      info.url = event.url;
    }
    session.events.push(event);
    return event;
  }
}
