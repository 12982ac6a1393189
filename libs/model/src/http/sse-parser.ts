/** One server-sent event: its `event:` name (if any) and its `data:` lines joined by newlines. */
export interface SseEvent {
  event?: string;
  data: string;
}

/**
 * An incremental text/event-stream parser (the WHATWG rules that matter here): lines end in LF, CRLF
 * or CR, `data:` lines accumulate, a blank line dispatches, `:` lines are comments. Chunks may split
 * anywhere, including between the CR and LF of one line ending.
 */
export class SseParser {
  private buffer = '';
  private dataLines: string[] = [];
  private eventName: string | undefined;

  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of a CRLF still in flight.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  /** The stream ended: a last event without its blank line still counts (some servers omit it). */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.buffer !== '') {
      const event = this.line(this.buffer.replace(/\r$/, ''));
      this.buffer = '';
      if (event) events.push(event);
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.dataLines.push(value);
    else if (field === 'event') this.eventName = value;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const event =
      this.dataLines.length > 0
        ? { data: this.dataLines.join('\n'), ...(this.eventName ? { event: this.eventName } : {}) }
        : undefined;
    this.dataLines = [];
    this.eventName = undefined;
    return event;
  }
}
