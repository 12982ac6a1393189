'use client';

import type { ReactNode } from 'react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useT } from '../../lib/i18n';
import { canManage } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { DrawerToggle } from '../drawer-toggle';

/** The workspace's settings pages: one header, tabs between them, a scrolling column of sections. */
export function SettingsFrame({ children }: { children: ReactNode }) {
  const t = useT();
  const pathname = usePathname();
  const { workspace } = useShell();
  // The workspace's own settings are for owners and admins; members see who is in it and its shared logins.
  const tabs = [
    ...(canManage(workspace.role)
      ? [{ href: '/settings', label: t.settingsTabWorkspace, testId: 'settings-tab-workspace' }]
      : []),
    { href: '/settings/members', label: t.settingsTabMembers, testId: 'settings-tab-members' },
    { href: '/settings/vault', label: t.settingsTabVault, testId: 'settings-tab-vault' },
  ];
  return (
    <div className="settings-page" data-testid="settings-page">
      <header className="settings-header">
        <DrawerToggle />
        <div className="settings-header-text">
          <h1>{t.settingsTitle}</h1>
          <p className="settings-sub">{workspace.name}</p>
        </div>
      </header>
      <nav className="settings-tabs" aria-label={t.settingsTitle}>
        {tabs.map((tab) => (
          <Link
            key={tab.href}
            href={tab.href}
            className="settings-tab"
            data-testid={tab.testId}
            aria-current={pathname === tab.href ? 'page' : undefined}
          >
            {tab.label}
          </Link>
        ))}
      </nav>
      <div className="settings-body">{children}</div>
    </div>
  );
}

interface SettingsSectionProps {
  title: string;
  description?: string;
  testId: string;
  children: ReactNode;
}

export function SettingsSection({ title, description, testId, children }: SettingsSectionProps) {
  return (
    <section className="settings-section" data-testid={testId} aria-label={title}>
      <h2 className="settings-section-title">{title}</h2>
      {description && <p className="settings-section-text">{description}</p>}
      {children}
    </section>
  );
}

/** What a member sees where owners and admins edit: the settings are theirs to change. */
export function AskAnOwner({ text }: { text: string }) {
  return (
    <p className="settings-note" data-testid="settings-ask-owner">
      {text}
    </p>
  );
}

/** "Saved" after a save, announced politely to screen readers. */
export function SavedNote({ shown }: { shown: boolean }) {
  const t = useT();
  return (
    <span className="saved-note" role="status" data-testid={shown ? 'settings-saved' : undefined}>
      {shown ? t.settingsSaved : ''}
    </span>
  );
}

interface SaveActionsProps {
  /** "Saved" shows: the last save went through and nothing was changed since. */
  saved: boolean;
  saving: boolean;
  disabled: boolean;
  testId: string;
  /** Buttons before Save (a test). */
  children?: ReactNode;
}

/** A settings form's last row: "Saved", any other buttons, and Save. */
export function SaveActions({ saved, saving, disabled, testId, children }: SaveActionsProps) {
  const t = useT();
  return (
    <div className="form-actions">
      <SavedNote shown={saved} />
      {children}
      <button type="submit" className="button button-primary" data-testid={testId} disabled={disabled}>
        {saving ? t.pleaseWait : t.save}
      </button>
    </div>
  );
}
