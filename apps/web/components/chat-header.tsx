'use client';

import { useRouter } from 'next/navigation';
import type { AgentView } from '@lazyboy/contracts';
import { agentStatusLabel } from '../lib/agent-status-label';
import { liveAgentStatus } from '../lib/live-agent-status';
import { useT } from '../lib/i18n';
import { useConnectionState } from '../lib/realtime';
import { useShell } from '../lib/shell-context';
import { Blobatar } from './blobatar';
import { DrawerToggle } from './drawer-toggle';
import { Menu } from './menu';

interface ChatHeaderProps {
  agent: AgentView;
  computerOpen: boolean;
  onToggleComputer(): void;
  onRename(): void;
  onDelete(): void;
}

export function ChatHeader({ agent, computerOpen, onToggleComputer, onRename, onDelete }: ChatHeaderProps) {
  const t = useT();
  const router = useRouter();
  const { runs } = useShell();
  const connection = useConnectionState();
  const status = liveAgentStatus(runs, agent.id);
  return (
    <header className="chat-header">
      <DrawerToggle />
      <Blobatar seed={agent.avatarSeed} size={40} status={status.kind} />
      <div className="chat-header-text">
        <h1 className="chat-title" data-testid="agent-title">
          {agent.name}
        </h1>
        <span className="chat-status" data-testid="chat-agent-status" data-status={status.kind}>
          {connection === 'reconnecting' || connection === 'disconnected' ? t.reconnecting : agentStatusLabel(status, t)}
        </span>
      </div>
      <div className="chat-header-actions">
        <button
          type="button"
          className={computerOpen ? 'button button-toggle is-on' : 'button button-toggle'}
          data-testid="computer-toggle"
          aria-pressed={computerOpen}
          aria-label={t.computer}
          onClick={onToggleComputer}
        >
          <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="2">
            <rect x="3" y="4" width="18" height="12" rx="2" />
            <path d="M8 20h8M12 16v4" strokeLinecap="round" />
          </svg>
          <span className="label-wide">{t.computer}</span>
        </button>
        <Menu trigger="⋯" label={t.agentActions} testId="agent-menu" className="menu-right">
          <button type="button" data-testid="agent-settings-link" onClick={() => router.push(`/agents/${agent.id}/settings`)}>
            {t.agentSettings}
          </button>
          <button type="button" data-testid="agent-vault-link" onClick={() => router.push(`/agents/${agent.id}/vault`)}>
            {t.vaultLink}
          </button>
          <button type="button" data-testid="agent-rename" onClick={onRename}>
            {t.renameAgent}
          </button>
          <button type="button" className="danger" data-testid="agent-delete" onClick={onDelete}>
            {t.deleteAgent}
          </button>
        </Menu>
      </div>
    </header>
  );
}
