'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useT } from '../lib/i18n';
import { canManage } from '../lib/roles';
import { useShell } from '../lib/shell-context';
import { AgentList } from './agent-list';
import { NewAgentForm } from './new-agent-form';
import { UserMenu } from './user-menu';
import { WorkspaceSwitcher } from './workspace-switcher';

/** Left column on wide screens, a drawer on phones (globals.css decides which). */
export function Sidebar({ onClose }: { onClose(): void }) {
  const t = useT();
  const { me, workspace } = useShell();
  const pathname = usePathname();
  return (
    <aside className="sidebar" data-testid="sidebar" aria-label={t.sidebarLabel}>
      <div className="sidebar-head">
        <Link href="/" className="brand">
          <img src="/icons/icon.svg" alt="" width={28} height={28} />
          <span>{t.appName}</span>
        </Link>
        <button type="button" className="icon-button sidebar-close" onClick={onClose} aria-label={t.closeMenu}>
          ✕
        </button>
      </div>
      <WorkspaceSwitcher />
      <nav className="sidebar-nav" aria-label={t.workspace}>
        {canManage(workspace.role) && (
          <Link
            href="/settings"
            className="sidebar-link"
            data-testid="settings-link"
            aria-current={pathname === '/settings' ? 'page' : undefined}
          >
            {t.settingsLink}
          </Link>
        )}
        <Link
          href="/settings/members"
          className="sidebar-link"
          data-testid="members-link"
          aria-current={pathname === '/settings/members' ? 'page' : undefined}
        >
          {t.membersLink}
        </Link>
      </nav>
      <div className="sidebar-section">
        <h2 className="sidebar-title">{t.agents}</h2>
        <NewAgentForm />
      </div>
      <AgentList />
      <div className="sidebar-foot">
        {me.user.isAdmin && (
          <Link href="/admin" className="sidebar-link" data-testid="admin-link">
            {t.adminLink}
          </Link>
        )}
        <UserMenu />
      </div>
    </aside>
  );
}
