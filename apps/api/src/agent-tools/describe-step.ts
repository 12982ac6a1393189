// The busy step people see while a tool runs ("browser click 3", "shell: ls -la", "reading notes.txt").
// Shown to everyone watching the agent, so it never carries typed text, eval code or a URL's query, and
// secret-looking words in commands are masked.

const MAX_STEP_CHARS = 80;
const MAX_COMMAND_CHARS = 60;

/** Arguments as the model sent them (JSON text) or already parsed. */
export function describeStep(toolName: string, args: unknown): string {
  const a = asRecord(args);
  return cut(describe(toolName, a), MAX_STEP_CHARS);
}

function describe(tool: string, a: Record<string, unknown>): string {
  switch (tool) {
    case 'browser':
      return describeBrowser(a);
    case 'computer_observe':
      return 'looking at the screen';
    case 'computer_act':
      return describeNative(a);
    case 'shell':
      return `shell: ${shortCommand(str(a['command']) ?? '')}`;
    case 'command_output':
      return `watching command ${num(a['command']) ?? ''}`.trim();
    case 'list_files':
      return `listing ${fileName(str(a['path']) ?? '.')}`;
    case 'read_file':
      return `reading ${fileName(str(a['path']) ?? 'a file')}`;
    case 'write_file':
      return `writing ${fileName(str(a['path']) ?? 'a file')}`;
    case 'wait':
      if (a['until'] === 'screen_changes') return 'waiting for the screen to change';
      return num(a['seconds']) === undefined ? 'waiting' : `waiting ${num(a['seconds'])} s`;
    default:
      return tool.replaceAll('_', ' ');
  }
}

function describeBrowser(a: Record<string, unknown>): string {
  const element = num(a['element']);
  switch (a['action']) {
    case 'navigate':
      return `browser open ${shortUrl(str(a['url']))}`;
    case 'observe':
      return 'browser observe';
    case 'click':
      return `browser click ${element ?? ''}`.trim();
    case 'type':
      // Never the text: it may be a password, and the step tells nobody anything the screen does not.
      return element === undefined ? 'browser typing' : `browser typing into ${element}`;
    case 'select':
      return `browser select in ${element ?? ''}`.trim();
    case 'scroll':
      return `browser scroll ${a['direction'] === 'up' ? 'up' : 'down'}`;
    case 'key':
      return `browser key ${shortKeys(str(a['keys']))}`;
    case 'back':
    case 'forward':
      return `browser ${a['action']}`;
    case 'tabs':
      return `browser tabs ${typeof a['op'] === 'string' ? a['op'] : ''}`.trim();
    case 'eval':
      return 'browser reading the page';
    default:
      return 'browser';
  }
}

function describeNative(a: Record<string, unknown>): string {
  const element = num(a['element']);
  switch (a['action']) {
    case 'click':
      return `desktop click ${element ?? ''}`.trim();
    case 'type':
      return 'desktop typing';
    case 'key':
      return `desktop key ${shortKeys(str(a['keys']))}`;
    case 'click_at':
      return `desktop click at ${num(a['x']) ?? '?'},${num(a['y']) ?? '?'}`;
    case 'drag':
      return 'desktop drag';
    default:
      return 'desktop';
  }
}

/**
 * A command as people see it: its first line, words that look like secrets masked, cut short. Also the
 * description of a background job (which the model and the event stream see).
 */
export function shortCommand(command: string): string {
  const firstLine = command.trim().split('\n')[0] ?? '';
  const masked = firstLine
    // --password=x, token=x, API_KEY=x, -H 'Authorization: Bearer x'
    .replace(/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 ***')
    .replace(
      /\b([A-Za-z0-9_-]*(?:pass(?:word)?|passwd|pwd|token|secret|api[_-]?key|auth)[A-Za-z0-9_-]*)(\s*[=:]\s*)(\S+)/gi,
      '$1$2***',
    )
    // user:password@ in URLs
    .replace(/(\/\/[^/\s:@]+):[^@\s/]+@/g, '$1:***@');
  const more = command.trim().includes('\n') ? ' …' : '';
  return cut(masked, MAX_COMMAND_CHARS) + more;
}

function shortUrl(url: string | undefined): string {
  if (!url) return 'a page';
  try {
    const parsed = new URL(url);
    // No query, fragment or credentials: they carry tokens often enough.
    const where = `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
    return cut(where, 50);
  } catch {
    return 'a page';
  }
}

function shortKeys(keys: string | undefined): string {
  return keys ? cut(keys, 20) : '';
}

/** The last two segments of a path: enough to recognise, short enough for a status line. */
function fileName(p: string): string {
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
