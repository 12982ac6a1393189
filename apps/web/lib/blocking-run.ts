import { PARKED_RUN_STATUSES, type RunView } from '@lazyboy/contracts';

/**
 * The run a queued run waits for when that one is parked in another chat (waiting for an answer or a
 * takeover): an agent runs one run at a time, so it holds the agent for every chat until a person answers
 * or dismisses it. Null when the queued run waits for nothing a person must do (an executing run, or none).
 * From the workspace's runs the shell keeps (snapshot + events): they change as the blocking run does.
 */
export function blockingParkedRun<R extends Pick<RunView, 'status' | 'agentId' | 'chatId' | 'createdAt'>>(
  queued: Pick<RunView, 'status' | 'agentId' | 'chatId'> | null,
  runsOfWorkspace: Iterable<R>,
): R | null {
  if (!queued || queued.status !== 'queued') return null;
  let blocker: R | null = null;
  for (const run of runsOfWorkspace) {
    if (run.agentId !== queued.agentId || run.chatId === queued.chatId || !PARKED_RUN_STATUSES.includes(run.status)) continue;
    if (!blocker || run.createdAt < blocker.createdAt) blocker = run;
  }
  return blocker;
}
