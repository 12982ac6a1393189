'use client';

import type { AgentStatus } from '../lib/agent-status';
import { agentStatusLabel } from '../lib/agent-status-label';
import { useT } from '../lib/i18n';

/** What the agent is doing right now, under the last message. Nothing when it is idle. */
export function BusyLine({ status }: { status: AgentStatus }) {
  const t = useT();
  if (status.kind === 'idle') return null;
  const moving = status.kind !== 'waiting' && status.kind !== 'queued';
  return (
    <div className="busy-line" data-testid="busy-line" data-status={status.kind} role="status" aria-live="polite">
      {moving && <span className="busy-dots" aria-hidden="true" />}
      <span>{agentStatusLabel(status, t)}</span>
    </div>
  );
}
