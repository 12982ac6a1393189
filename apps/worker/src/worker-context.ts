import type { ScreenManager } from '@lazyboy/desktop';
import type { BrowserSessions } from './browser/browser-sessions.js';
import type { ScreenshotTracker } from './browser/screenshots.js';
import type { ScreenFences } from './fencing/screen-fences.js';
import type { SlotQueue } from './fencing/slot-queue.js';
import type { ProfileLocks } from './screens/profile-locks.js';
import type { Workspace } from './workspace/workspace.js';

/** What the route modules share: one of each per worker (per computer). */
export interface WorkerContext {
  computerId: string;
  screens: ScreenManager;
  fences: ScreenFences;
  queue: SlotQueue;
  profileLocks: ProfileLocks;
  browsers: BrowserSessions;
  screenshots: ScreenshotTracker;
  workspace: Workspace;
}
