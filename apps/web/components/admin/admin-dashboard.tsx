'use client';

import { useCallback } from 'react';
import Link from 'next/link';
import type { AdminComputerListView, AdminWorkspaceListView } from '@lazyboy/contracts';
import { admin } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { useSignedIn } from '../../lib/use-me';
import { ErrorBanner } from '../error-banner';
import { AdminComputers } from './admin-computers';
import { AdminInstanceSettings } from './admin-instance-settings';
import { AdminRuns } from './admin-runs';
import { AdminUsers } from './admin-users';
import { AdminWorkspaces } from './admin-workspaces';
import { useAdminData } from './use-admin-data';

/** /admin: the instance administrators' view of every account, workspace, computer and run. */
export function AdminDashboard() {
  const t = useT();
  const { me, error, retry } = useSignedIn();

  if (error) {
    return (
      <div className="splash">
        <ErrorBanner message={errorText(error, t)} onRetry={retry} />
      </div>
    );
  }
  if (!me) return <div className="splash">{t.loading}</div>;
  if (!me.user.isAdmin) {
    return (
      <div className="page-message" data-testid="admin-forbidden">
        <h1>{t.adminTitle}</h1>
        <p>{t.adminForbidden}</p>
        <Link href="/">{t.backHome}</Link>
      </div>
    );
  }
  return <AdminTables selfId={me.user.id} />;
}

function AdminTables({ selfId }: { selfId: string }) {
  const t = useT();
  const loadWorkspaces = useCallback((signal: AbortSignal) => admin.workspaces(undefined, signal), []);
  const loadComputers = useCallback((signal: AbortSignal) => admin.computers(signal), []);
  const workspaces = useAdminData<AdminWorkspaceListView>(loadWorkspaces);
  const computers = useAdminData<AdminComputerListView>(loadComputers);

  return (
    <div className="admin-page" data-testid="admin-dashboard">
      <header className="admin-header">
        <Link href="/" className="button button-quiet button-small">
          ← {t.backToApp}
        </Link>
        <h1>{t.adminTitle}</h1>
        <nav className="admin-nav" aria-label={t.adminTitle}>
          <a href="#settings">{t.adminSettings}</a>
          <a href="#users">{t.adminUsers}</a>
          <a href="#workspaces">{t.adminWorkspaces}</a>
          <a href="#computers">{t.adminComputers}</a>
          <a href="#runs">{t.adminRuns}</a>
        </nav>
      </header>
      <AdminInstanceSettings />
      <AdminUsers selfId={selfId} />
      <AdminWorkspaces workspaces={workspaces} />
      <AdminComputers computers={computers} />
      <AdminRuns />
    </div>
  );
}
