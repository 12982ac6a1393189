import { z } from 'zod';

// What a working run is doing right now, as parts rather than a sentence: every client words it in its
// person's language ("瀏覽器：點擊 3", "browser: click 3"). `target` is the one language-neutral argument a
// step has (an element number, a host and path, keys, a shortened command, a file name, seconds); the API
// never puts typed text, eval code, URL queries or secret-looking words in it.

export const busyStepKindSchema = z.enum([
  'thinking',
  'booting',
  'waking',
  'browser_open',
  'browser_observe',
  'browser_click',
  /** A click at a point of the window, without an element: `target` is "x,y". */
  'browser_click_at',
  'browser_hover',
  'browser_drag',
  'browser_type',
  'browser_select',
  'browser_scroll_up',
  'browser_scroll_down',
  'browser_scroll_left',
  'browser_scroll_right',
  'browser_key',
  'browser_back',
  'browser_forward',
  'browser_tabs',
  'browser_read',
  'browser',
  'screen_look',
  'desktop_click',
  'desktop_click_at',
  'desktop_type',
  'desktop_key',
  'desktop_drag',
  'desktop',
  'shell',
  'command_watch',
  'files_list',
  'file_read',
  'file_write',
  'wait',
  'wait_screen',
  /** list_accounts: reading which saved logins there are. */
  'vault_list',
  /** use_saved_login: logging in with a saved account (never a target: the account is nobody's business). */
  'vault_login',
  /** use_saved_login with step totp: entering a saved 2FA code. */
  'vault_code',
  /** A tool without its own wording: `target` is the tool's name. */
  'tool',
]);
export type BusyStepKind = z.infer<typeof busyStepKindSchema>;

/** The kinds whose step may name a target; the others never carry one. */
export const BUSY_STEP_KINDS_WITH_TARGET = [
  'browser_open',
  'browser_click',
  'browser_click_at',
  'browser_hover',
  'browser_drag',
  'browser_type',
  'browser_select',
  'browser_key',
  'browser_tabs',
  'desktop_click',
  'desktop_click_at',
  'desktop_key',
  'shell',
  'command_watch',
  'files_list',
  'file_read',
  'file_write',
  'wait',
  'tool',
] as const satisfies readonly BusyStepKind[];
export type BusyStepKindWithTarget = (typeof BUSY_STEP_KINDS_WITH_TARGET)[number];

export const BUSY_STEP_TARGET_MAX = 80;

export const busyStepSchema = z.object({
  kind: busyStepKindSchema,
  target: z.string().max(BUSY_STEP_TARGET_MAX).optional(),
});
export type BusyStep = z.infer<typeof busyStepSchema>;
