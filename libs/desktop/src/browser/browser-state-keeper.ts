import { BrowserStateError } from '../display/errors.js';
import { serializeBrowserState, type SavedBrowserState } from './browser-state.js';
import { captureBrowserState, restoreBrowserState, type BrowserCalls } from './browser-state-cdp.js';
import {
  readBrowserStateFile,
  removeStaleTemporaries,
  writeBrowserStateFile,
  type BrowserStatePlace,
} from './browser-state-file.js';

/** How often a running browser's state is looked at by default (written only when it changed). */
export const DEFAULT_BROWSER_STATE_INTERVAL_MS = 5_000;

export interface BrowserStateKeeperOptions {
  /** The screen's DevTools pipe: root-level calls, no page attached. */
  browser: BrowserCalls & { readonly closed: boolean };
  place: BrowserStatePlace;
  /** Between two looks at the browser's state; what a killed worker loses at most. */
  intervalMs: number;
  /** Names the screen in log lines, e.g. ':1'. */
  label: string;
  log: (line: string) => void;
}

/**
 * Keeps one screen's tabs and cookies in its profile so that they survive the browser: restored once
 * at launch, then saved whenever they changed (looked at every `intervalMs`), at suspend and at a
 * graceful stop. Nothing here ever fails the screen: a state that cannot be read starts the browser
 * clean, one that cannot be written keeps the previous file and is logged.
 */
export class BrowserStateKeeper {
  private readonly browser: BrowserStateKeeperOptions['browser'];
  private readonly place: BrowserStatePlace;
  private readonly intervalMs: number;
  private readonly label: string;
  private readonly log: (line: string) => void;
  /** The text last written or read: a look that finds the same state writes nothing. */
  private written: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  /** Saves run one after another: a periodic one and the one at stop never interleave their writes. */
  private saving: Promise<void> = Promise.resolve();
  private lastFailure: string | undefined;

  constructor(options: BrowserStateKeeperOptions) {
    this.browser = options.browser;
    this.place = options.place;
    this.intervalMs = options.intervalMs;
    this.label = options.label;
    this.log = options.log;
  }

  /** At launch, before anything else uses the browser. Never throws. */
  async restore(): Promise<void> {
    const started = Date.now();
    await removeStaleTemporaries(this.place);
    let state: SavedBrowserState | undefined;
    try {
      state = await readBrowserStateFile(this.place);
    } catch (error) {
      this.log(`${this.label}: the saved browser state is not used (${message(error)}); the browser starts clean`);
      return;
    }
    if (!state) return;
    this.written = serializeBrowserState(state);
    try {
      const restored = await restoreBrowserState(this.browser, state);
      const refused = restored.refusedCookies > 0 ? ` (${restored.refusedCookies} refused)` : '';
      this.log(
        `${this.label}: browser state restored: ${restored.tabs} tab(s), ${restored.cookies} cookie(s)${refused} in ${Date.now() - started} ms`,
      );
    } catch (error) {
      this.log(`${this.label}: restoring the browser state failed half-way (${message(error)}); the browser goes on as it is`);
    }
  }

  /** Starts (or, after pause, resumes) the periodic look. */
  start(): void {
    if (this.stopped || this.running) return;
    this.running = true;
    this.schedule();
  }

  /** No periodic looks while the browser is frozen (a suspended computer): it would not answer them. */
  pause(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Saves now if the state changed; resolves once it is written (or could not be). Never throws. */
  save(): Promise<void> {
    const run = this.saving.then(() => this.saveOnce());
    this.saving = run;
    return run;
  }

  /** No more saves after this (the browser is going away, or has gone). */
  stop(): void {
    this.pause();
    this.stopped = true;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.save().then(() => {
        if (this.running && !this.stopped) this.schedule();
      });
    }, this.intervalMs);
    // A keeper never keeps the worker's process alive.
    this.timer.unref();
  }

  private async saveOnce(): Promise<void> {
    if (this.stopped || this.browser.closed) return;
    try {
      const state = await captureBrowserState(this.browser);
      // Stopped while the browser was asked (a stop that gave up waiting for this save): what it answered
      // may already be the browser shutting down.
      if (this.stopped) return;
      // A browser with no tab at all is closing its windows (it quits with the last one): its state
      // now is not the one to come back to.
      if (state.openTabs === 0) return;
      const text = serializeBrowserState(state.saved);
      if (text === this.written) return;
      await writeBrowserStateFile(this.place, text);
      this.written = text;
      this.lastFailure = undefined;
    } catch (error) {
      // A browser that went away meanwhile is not worth a line: its screen reports that.
      if (this.browser.closed) return;
      const failure =
        error instanceof BrowserStateError ? error.message : `capturing the browser state failed: ${message(error)}`;
      // Once per kind of failure, not every few seconds.
      if (failure !== this.lastFailure) this.log(`${this.label}: ${failure}`);
      this.lastFailure = failure;
    }
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
