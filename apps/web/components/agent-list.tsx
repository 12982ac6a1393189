'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { agentStatusLabel } from '../lib/agent-status-label';
import { liveAgentStatus } from '../lib/live-agent-status';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { Blobatar } from './blobatar';

export function AgentList() {
  const t = useT();
  const { agents, runs } = useShell();
  const pathname = usePathname();
  if (!agents) return <p className="sidebar-note">{t.loading}</p>;
  if (agents.length === 0) return <p className="sidebar-note">{t.noAgentsYet}</p>;
  return (
    <ul className="agent-list" data-testid="agent-list">
      {agents.map((agent) => {
        const status = liveAgentStatus(runs, agent.id);
        const href = `/agents/${agent.id}`;
        const current = pathname === href;
        return (
          <li key={agent.id}>
            <Link
              href={href}
              className="agent-item"
              data-testid="agent-item"
              data-agent-id={agent.id}
              data-status={status.kind}
              aria-current={current ? 'page' : undefined}
            >
              <Blobatar seed={agent.avatarSeed} size={36} status={status.kind} />
              <span className="agent-item-text">
                <span className="agent-name">{agent.name}</span>
                <span className="agent-status" data-testid="agent-status" data-status={status.kind}>
                  {agentStatusLabel(status, t)}
                </span>
              </span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
