import type { Messages } from '../locales';
import type { AgentStatus } from './agent-status';
import { busyStepLabel } from './busy-step-label';

/** The words for an agent status: the sidebar's status text and the chat's busy line. */
export function agentStatusLabel(status: AgentStatus, t: Messages): string {
  switch (status.kind) {
    case 'idle':
      return t.statusIdle;
    case 'queued':
      return t.statusQueued;
    case 'thinking':
      return t.statusThinking;
    case 'booting':
      return t.statusBooting;
    case 'waking':
      return t.statusWaking;
    case 'acting':
      return busyStepLabel(status.step, t);
    case 'waiting':
      return status.on === 'input' ? t.statusWaitingInput : t.statusWaitingTakeover;
  }
}
