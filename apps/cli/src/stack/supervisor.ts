import type { ManagedProcess } from '@lazyboy/localstack';
import type { ComponentName } from './stack-state.js';

export interface ComponentSpec {
  name: ComponentName;
  /** Starts the component and resolves once it answers; a failed start leaves nothing running. */
  start(): Promise<ManagedProcess>;
}

export interface SupervisorOptions {
  print: (line: string) => void;
  /** Called whenever the set of running processes changes (to keep stack.json current). */
  onChange: (running: ReadonlyArray<{ name: ComponentName; pid: number }>) => void;
  /** Delay before the n-th consecutive restart: doubles from this, capped at 30 s. */
  firstRestartDelayMs?: number;
  /** This many restarts of one component within `crashWindowMs` is a crash loop: give up. */
  maxRestarts?: number;
  crashWindowMs?: number;
}

export class CrashLoopError extends Error {
  override readonly name = 'CrashLoopError';
}

/**
 * Keeps the stack's components running: a component that exits on its own is started again after a
 * growing delay (Postgres or Redis going away is survivable: the API reconnects), until it crashes too
 * often, which ends the whole stack. Stops everything newest first.
 */
export class Supervisor {
  private readonly running = new Map<ComponentName, ManagedProcess>();
  private readonly order: ComponentName[] = [];
  private readonly restarts = new Map<ComponentName, number[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopping = false;
  private giveUp: (error: CrashLoopError) => void = () => undefined;
  /** Resolves with the reason when a component crash-loops; never resolves otherwise. */
  readonly crashLoop = new Promise<CrashLoopError>((resolve) => (this.giveUp = resolve));

  constructor(private readonly options: SupervisorOptions) {}

  async start(spec: ComponentSpec): Promise<void> {
    const proc = await spec.start();
    if (this.stopping) {
      await proc.stop();
      return;
    }
    this.running.set(spec.name, proc);
    if (!this.order.includes(spec.name)) this.order.push(spec.name);
    this.changed();
    void proc.exited.then(({ code, signal }) => {
      if (this.stopping || this.running.get(spec.name) !== proc) return;
      this.running.delete(spec.name);
      this.changed();
      this.scheduleRestart(spec, code === null ? `signal ${signal}` : `code ${code}`);
    });
  }

  /** Stops every component, newest first; components still starting are stopped when they finish. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const name of [...this.order].reverse()) await this.running.get(name)?.stop();
    this.running.clear();
    this.changed();
  }

  private scheduleRestart(spec: ComponentSpec, how: string): void {
    const now = Date.now();
    const window = this.options.crashWindowMs ?? 60_000;
    const recent = (this.restarts.get(spec.name) ?? []).filter((t) => now - t < window);
    recent.push(now);
    this.restarts.set(spec.name, recent);
    if (recent.length > (this.options.maxRestarts ?? 5)) {
      this.giveUp(new CrashLoopError(`${spec.name} keeps exiting (${recent.length} times in ${window / 1000} s)`));
      return;
    }
    const delay = Math.min((this.options.firstRestartDelayMs ?? 1_000) * 2 ** (recent.length - 1), 30_000);
    this.options.print(`${spec.name} exited (${how}); restarting it in ${(delay / 1000).toFixed(1)} s`);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopping) return;
      this.start(spec).then(
        () => this.options.print(`${spec.name} is running again`),
        (error: Error) => {
          this.options.print(`${spec.name} did not start: ${error.message.split('\n')[0]}`);
          if (!this.stopping) this.scheduleRestart(spec, 'failed start');
        },
      );
    }, delay);
    this.timers.add(timer);
  }

  private changed(): void {
    this.options.onChange(
      this.order.flatMap((name) => {
        const proc = this.running.get(name);
        return proc ? [{ name, pid: proc.pid }] : [];
      }),
    );
  }
}
