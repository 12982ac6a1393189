'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { agentStatusLabel } from '../lib/agent-status-label';
import { botStatus } from '../lib/bot-status';
import { useT } from '../lib/i18n';
import { useShell } from '../lib/shell-context';
import { Blobatar } from './blobatar';

export function AgentList() {
  const t = useT();
  const { bots, runs } = useShell();
  const pathname = usePathname();
  if (!bots) return <p className="sidebar-note">{t.loading}</p>;
  if (bots.length === 0) return <p className="sidebar-note">{t.noAgentsYet}</p>;
  return (
    <ul className="agent-list" data-testid="agent-list">
      {bots.map((bot) => {
        const status = botStatus(runs, bot.id);
        const href = `/agents/${bot.id}`;
        const current = pathname === href;
        return (
          <li key={bot.id}>
            <Link
              href={href}
              className="agent-item"
              data-testid="agent-item"
              data-bot-id={bot.id}
              data-status={status.kind}
              aria-current={current ? 'page' : undefined}
            >
              <Blobatar seed={bot.avatarSeed} size={36} status={status.kind} />
              <span className="agent-item-text">
                <span className="agent-name">{bot.name}</span>
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
