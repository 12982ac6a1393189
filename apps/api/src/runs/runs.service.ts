import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { RunEventView, RunView } from '@lazyboy/contracts';
import type { Run } from '../persistence/generated/client.js';
import { ApiError, conflict, notFound } from '../common/api-error.js';
import type { Principal } from '../auth/principal.js';
import { ScreenControlService } from '../computers/screen-control.service.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { WorkspaceAccess } from '../tenancy/workspace-access.js';
import { RunSignals } from './run-signals.js';
import { RunsRepository } from './runs.repository.js';
import { toRunView } from './run-views.js';

/** Runs as people see and steer them: read, stop, answer; and the hooks other modules call. */
@Injectable()
export class RunsService implements OnModuleInit {
  constructor(
    private readonly runs: RunsRepository,
    private readonly signals: RunSignals,
    private readonly realtime: RealtimePublisher,
    private readonly control: ScreenControlService,
    private readonly access: WorkspaceAccess,
  ) {}

  onModuleInit(): void {
    // However control comes back (release, admin, lease expiry), the parked run continues.
    this.control.onRelease((agentId) => this.resumeAfterRelease(agentId));
  }

  async get(principal: Principal, runId: string): Promise<RunView> {
    return toRunView(await this.visible(principal, runId));
  }

  async activeInWorkspace(principal: Principal, workspaceId: string): Promise<RunView[]> {
    await this.access.require(principal, workspaceId);
    return (await this.runs.activeInWorkspace(workspaceId)).map(toRunView);
  }

  async events(principal: Principal, runId: string, afterSeq: number, limit: number): Promise<RunEventView[]> {
    const run = await this.visible(principal, runId);
    const events = await this.runs.events(run.id, afterSeq, limit);
    return events.map((e) => ({ seq: e.seq, type: e.type, payload: e.payload, createdAt: e.createdAt.toISOString() }));
  }

  /** Stop: at once for a run no executor holds, at the next safe boundary for an executing one. */
  async cancel(principal: Principal, runId: string): Promise<RunView> {
    const run = await this.visible(principal, runId);
    return toRunView(await this.stop(run.id));
  }

  /** Stop by id, for the admin dashboard and for clearing a chat. CONFLICT when the run is already over. */
  async stop(runId: string): Promise<Run> {
    const stopped = await this.runs.requestCancel(runId);
    if (!stopped) throw notFound('run');
    const { run, changed } = stopped;
    if (!changed) {
      // Already over, or already asked to stop: nothing to do, and saying so beats a silent 200.
      if (run.status === 'leased' || run.status === 'running') return run;
      throw conflict('run_ended', `the run is already ${run.status}`);
    }
    if (run.status === 'leased' || run.status === 'running') await this.signals.stop(run.id);
    else await this.signals.wake(); // the agent is free: whatever queued behind it may start
    await this.publish(run);
    return run;
  }

  async stopChatRuns(chatId: string): Promise<void> {
    for (const run of await this.runs.activeRunsOfChat(chatId)) {
      // A run that ended between the listing and the stop is just as good.
      await this.stop(run.id).catch((error: unknown) => {
        if (!(error instanceof ApiError && error.code === 'CONFLICT')) throw error;
      });
    }
  }

  /** Answers a run parked in waiting_input without writing a chat message (automation). */
  async answer(principal: Principal, runId: string, text: string): Promise<RunView> {
    const run = await this.visible(principal, runId);
    const resumed = await this.runs.resume(run.id, 'waiting_input', { kind: 'answer', text });
    if (!resumed) throw conflict('run_not_waiting', `the run is ${run.status}, not waiting for an answer`);
    await this.queued();
    await this.publish(resumed);
    return toRunView(resumed);
  }

  /**
   * A person handed the screen back: the agent's run parked in waiting_takeover continues from the current
   * screen. Returns the resumed run, if there was one.
   */
  async resumeAfterRelease(agentId: string): Promise<Run | null> {
    const parked = await this.runs.activeRunOfAgent(agentId, ['waiting_takeover']);
    if (!parked) return null;
    const resumed = await this.runs.resume(parked.id, 'waiting_takeover', { kind: 'resumed' });
    if (resumed) {
      await this.queued();
      await this.publish(resumed);
    }
    return resumed;
  }

  /** Rings the executors' doorbell after a run was queued. */
  async queued(): Promise<void> {
    await this.signals.wake();
  }

  async publish(run: Run | RunView): Promise<void> {
    const view = 'leaseFence' in run ? toRunView(run) : run;
    const rooms = [
      { kind: 'workspace' as const, id: view.workspaceId },
      { kind: 'agent' as const, id: view.agentId },
      ...(view.chatId ? [{ kind: 'chat' as const, id: view.chatId }] : []),
    ];
    await this.realtime.publish(rooms, { type: 'run.updated', run: view });
  }

  private async visible(principal: Principal, runId: string): Promise<Run> {
    const run = await this.runs.findVisible(principal, runId);
    if (!run) throw notFound('run');
    return run;
  }
}
