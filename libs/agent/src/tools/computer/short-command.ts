const MAX_COMMAND_CHARS = 60;

/**
 * A command as people see it: its first line, words that look like secrets masked, cut short. The
 * description of a shell command's background job (which the model and the event stream see) and of
 * the service's busy step.
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
  const cut = masked.length <= MAX_COMMAND_CHARS ? masked : `${masked.slice(0, MAX_COMMAND_CHARS - 1)}…`;
  return cut + more;
}
