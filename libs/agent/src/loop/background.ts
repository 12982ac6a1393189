import type { ContentPart } from '@lazyboy/contracts';
import type { ToolOutcome } from '../tools/tool.js';

export interface BackgroundJob {
  id: string;
  kind: 'command' | 'subagent';
  description: string;
  status: 'running' | 'finished';
  outcome?: ToolOutcome;
  /** The job's completion has been told to the model. */
  reported: boolean;
}

/**
 * Work that outlives the tool call that started it: a command past its block_until_ms, a subagent.
 * When a job finishes, the loop tells the model at its next boundary ("revival"); when the model
 * yields while jobs still run, the loop waits for them instead of ending the turn.
 */
export class BackgroundJobs {
  private readonly jobs = new Map<string, BackgroundJob>();
  private next = 1;
  private wake: () => void = () => undefined;

  start(kind: BackgroundJob['kind'], description: string, work: Promise<ToolOutcome>): string {
    const id = `${kind === 'command' ? 'job' : 'agent'}-${this.next++}`;
    const job: BackgroundJob = { id, kind, description, status: 'running', reported: false };
    this.jobs.set(id, job);
    void work
      .catch((error: unknown): ToolOutcome => ({ content: `failed: ${(error as Error).message}`, isError: true }))
      .then((outcome) => {
        job.status = 'finished';
        job.outcome = outcome;
        this.wake();
      });
    return id;
  }

  get(id: string): BackgroundJob | undefined {
    return this.jobs.get(id);
  }

  running(): BackgroundJob[] {
    return [...this.jobs.values()].filter((j) => j.status === 'running');
  }

  /** Some job still runs, or finished without the model having heard of it. */
  pending(): boolean {
    return [...this.jobs.values()].some((j) => j.status === 'running' || !j.reported);
  }

  /** Finished jobs the model has not heard about yet; marks them reported. */
  takeFinished(): BackgroundJob[] {
    const done = [...this.jobs.values()].filter((j) => j.status === 'finished' && !j.reported);
    for (const job of done) job.reported = true;
    return done;
  }

  /** Resolves when any job finishes or `interrupt` is called; at once if a finished job is unreported. */
  waitForChange(): Promise<void> {
    if ([...this.jobs.values()].some((j) => j.status === 'finished' && !j.reported)) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = () => {
        this.wake = () => undefined;
        resolve();
      };
    });
  }

  interrupt(): void {
    this.wake();
  }
}

/** The message that tells the model a background job has finished. */
export function revivalMessage(job: BackgroundJob): string {
  const outcome = job.outcome;
  const body = !outcome ? '' : typeof outcome.content === 'string' ? outcome.content : textOf(outcome.content);
  return `[background] ${job.kind} ${job.id} (${job.description}) ${outcome?.isError ? 'failed' : 'finished'}:\n${body}`;
}

function textOf(parts: ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : `[image ${p.mimeType}]`)).join('\n');
}
