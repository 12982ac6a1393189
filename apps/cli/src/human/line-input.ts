import readline from 'node:readline';

/**
 * The process's one reader of standard input. A line goes to whoever is waiting for one (a question, the
 * REPL prompt); a line nobody waits for goes to `onUnclaimed` (steering while the agent works) or is kept
 * for the next reader.
 */
export class LineInput {
  private readonly waiters: Array<(line: string | null) => void> = [];
  private readonly buffered: string[] = [];
  private closed = false;
  onUnclaimed: ((line: string) => void) | undefined;

  constructor(input: NodeJS.ReadableStream = process.stdin) {
    const rl = readline.createInterface({ input, terminal: false });
    rl.on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else if (this.onUnclaimed) this.onUnclaimed(line);
      else this.buffered.push(line);
    });
    rl.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiters.splice(0)) waiter(null);
    });
  }

  /** The next line, or null at end of input (or after `timeoutMs`, or when `signal` aborts). */
  next(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<string | null> {
    const ready = this.buffered.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (line: string | null) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        const index = this.waiters.indexOf(done);
        if (index >= 0) this.waiters.splice(index, 1);
        resolve(line);
      };
      const onAbort = () => done(null);
      if (options.timeoutMs !== undefined) timer = setTimeout(() => done(null), options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort);
      this.waiters.push(done);
    });
  }

  get ended(): boolean {
    return this.closed && this.buffered.length === 0;
  }
}
