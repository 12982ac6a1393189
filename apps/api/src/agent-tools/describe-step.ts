import { shortCommand } from '@lazyboy/agent';
import { BUSY_STEP_TARGET_MAX, type BusyStep, type BusyStepKind } from '@lazyboy/contracts';

// The busy step people see while a tool runs (browser_click 3, shell "ls -la", file_read notes.txt): the
// web words it in the person's language. Shown to everyone watching the agent, so its target never
// carries typed text, eval code or a URL's query, and secret-looking words in commands are masked.

/** Arguments as the model sent them (JSON text) or already parsed. */
export function describeStep(toolName: string, args: unknown): BusyStep {
  const [kind, target] = describe(toolName, asRecord(args));
  return target === undefined || target === '' ? { kind } : { kind, target: cut(target, BUSY_STEP_TARGET_MAX) };
}

/** Whether two steps read the same (a repeated step is not written again). */
export function sameStep(a: BusyStep | null, b: BusyStep | null): boolean {
  return a?.kind === b?.kind && a?.target === b?.target;
}

type Step = [BusyStepKind, string?];

function describe(tool: string, a: Record<string, unknown>): Step {
  switch (tool) {
    case 'browser':
      return describeBrowser(a);
    case 'computer_observe':
      return ['screen_look'];
    case 'computer_act':
      return describeNative(a);
    case 'shell':
      return ['shell', shortCommand(str(a['command']) ?? '')];
    case 'command_output':
      return ['command_watch', num(a['command'])?.toString()];
    case 'list_files':
      return ['files_list', fileName(str(a['path']) ?? '.')];
    case 'read_file':
      return ['file_read', fileName(str(a['path']) ?? '')];
    case 'write_file':
      return ['file_write', fileName(str(a['path']) ?? '')];
    case 'list_accounts':
      return ['vault_list'];
    case 'use_saved_login':
      return [a['step'] === 'totp' ? 'vault_code' : 'vault_login'];
    case 'wait':
      if (a['until'] === 'screen_changes') return ['wait_screen'];
      return ['wait', num(a['seconds'])?.toString()];
    default:
      return ['tool', tool];
  }
}

function describeBrowser(a: Record<string, unknown>): Step {
  const element = num(a['element'])?.toString();
  switch (a['action']) {
    case 'navigate':
      return ['browser_open', shortUrl(str(a['url']))];
    case 'observe':
      return ['browser_observe'];
    case 'click':
      return element === undefined && num(a['x']) !== undefined
        ? ['browser_click_at', `${num(a['x'])},${num(a['y']) ?? '?'}`]
        : ['browser_click', element];
    case 'hover':
      return ['browser_hover', element];
    case 'drag':
      return ['browser_drag', element];
    case 'type':
      // Never the text: it may be a password, and the step tells nobody anything the screen does not.
      return ['browser_type', element];
    case 'select':
      return ['browser_select', element];
    case 'scroll':
      switch (a['direction']) {
        case 'up':
          return ['browser_scroll_up'];
        case 'left':
          return ['browser_scroll_left'];
        case 'right':
          return ['browser_scroll_right'];
        default:
          return ['browser_scroll_down'];
      }
    case 'key':
      return ['browser_key', shortKeys(str(a['keys']))];
    case 'back':
      return ['browser_back'];
    case 'forward':
      return ['browser_forward'];
    case 'tabs':
      return ['browser_tabs', typeof a['op'] === 'string' ? cut(a['op'], 20) : undefined];
    case 'eval':
      return ['browser_read'];
    default:
      return ['browser'];
  }
}

function describeNative(a: Record<string, unknown>): Step {
  switch (a['action']) {
    case 'click':
      return ['desktop_click', num(a['element'])?.toString()];
    case 'type':
      return ['desktop_type'];
    case 'key':
      return ['desktop_key', shortKeys(str(a['keys']))];
    case 'click_at':
      return ['desktop_click_at', `${num(a['x']) ?? '?'},${num(a['y']) ?? '?'}`];
    case 'drag':
      return ['desktop_drag'];
    default:
      return ['desktop'];
  }
}

function shortUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    // No query, fragment or credentials: they carry tokens often enough.
    const where = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
    return cut(where, 50);
  } catch {
    return undefined;
  }
}

function shortKeys(keys: string | undefined): string | undefined {
  return keys ? cut(keys, 20) : undefined;
}

/** The last two segments of a path: enough to recognise, short enough for a status line. */
function fileName(p: string): string | undefined {
  if (p === '') return undefined;
  const parts = p.split('/').filter((s) => s !== '');
  return cut(parts.length > 2 ? `…/${parts.slice(-2).join('/')}` : p, 50);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function asRecord(args: unknown): Record<string, unknown> {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
