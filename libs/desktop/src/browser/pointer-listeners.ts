import type { TabCdp } from './tab-cdp.js';

/**
 * Which elements a script made clickable. Today's pages attach their handlers with addEventListener,
 * which leaves no trace in the DOM a selector could find; the DevTools command line's getEventListeners
 * (what the Elements panel shows) reads them. It exists only in an evaluation that asks for the command
 * line API, so the scan runs over CDP, and leaves its answer on the window for the observation
 * (page-script.ts reads window.__lazyboyListening).
 */

/** The events that make an element something a person acts on with the pointer. */
const POINTER_EVENTS = ['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'contextmenu', 'touchstart'];
/** Elements scanned at most (document order): a bound on the scan's cost on very large documents. */
export const MAX_SCANNED_ELEMENTS = 6_000;

const SCAN = `(() => {
  const events = ${JSON.stringify(POINTER_EVENTS)};
  const listening = new WeakSet();
  const all = document.body ? document.body.getElementsByTagName('*') : [];
  const count = Math.min(all.length, ${MAX_SCANNED_ELEMENTS});
  for (let i = 0; i < count; i++) {
    const listeners = getEventListeners(all[i]);
    if (events.some((type) => listeners[type] && listeners[type].length > 0)) listening.add(all[i]);
  }
  Object.defineProperty(window, '__lazyboyListening', { value: listening, configurable: true, writable: true, enumerable: false });
  return count;
})()`;

/** Scans one page's elements for pointer handlers before each observation. */
export class PointerListenerScan {
  constructor(private readonly cdp: TabCdp) {}

  /** Marks the elements with pointer handlers; false when the browser has no CDP (the scan is skipped). */
  async run(): Promise<boolean> {
    const session = await this.cdp.open();
    if (!session) return false;
    const { exceptionDetails } = (await session.send('Runtime.evaluate', {
      expression: SCAN,
      includeCommandLineAPI: true,
      returnByValue: true,
    })) as { exceptionDetails?: { text: string } };
    if (exceptionDetails) throw new Error(`the pointer-listener scan failed: ${exceptionDetails.text}`);
    return true;
  }
}
