import { busyStepSchema, runErrorCodeOf, type BusyStep, type RunView } from '@lazyboy/contracts';
import type { Run } from '../persistence/generated/client.js';
import { pendingQuestionOf, readRunState } from './run-state.js';

export function toRunView(run: Run): RunView {
  const question = run.status === 'waiting_input' || run.status === 'waiting_takeover' ? pendingQuestionOf(run.checkpoint) : null;
  const result = run.result as { text?: unknown } | null;
  return {
    id: run.id,
    workspaceId: run.workspaceId,
    agentId: run.agentId,
    chatId: run.chatId,
    kind: run.kind,
    status: run.status,
    busyStep: busyStepOf(run.busyStep),
    roundsUsed: run.roundsUsed,
    plan: (readRunState(run.checkpoint)?.agent.plan ?? []).map(({ title, status }) => ({ title, status })),
    question: question
      ? { kind: question.kind, prompt: question.prompt, ...(question.draft === undefined ? {} : { draft: question.draft }) }
      : null,
    resultText: typeof result?.text === 'string' ? result.text : null,
    errorCode: runErrorCodeOf(run.errorCode),
    errorMessage: run.errorMessage,
    cancelRequested: run.cancelRequestedAt !== null,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}

/** The stored step as the contract has it; a row written by an older release (or damaged) shows as none. */
function busyStepOf(stored: unknown): BusyStep | null {
  const parsed = busyStepSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}
