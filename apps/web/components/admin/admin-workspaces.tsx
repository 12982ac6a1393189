'use client';

import { useCallback, useState } from 'react';
import type { AdminWorkspaceListView } from '@lazyboy/contracts';
import { admin } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { ErrorBanner } from '../error-banner';
import { AdminSection } from './admin-section';
import type { AdminData } from './use-admin-data';

/** The dashboard loads workspaces once for this table and for naming the runs' workspaces. */
export function AdminWorkspaces({ workspaces }: { workspaces: AdminData<AdminWorkspaceListView> }) {
  const t = useT();
  const locale = useLocale();
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const loadMore = useCallback(async () => {
    const before = workspaces.data?.nextBefore;
    if (!before) return;
    setLoadingMore(true);
    try {
      const page = await admin.workspaces(before);
      workspaces.set((list) => list && { items: [...list.items, ...page.items], nextBefore: page.nextBefore });
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setLoadingMore(false);
    }
  }, [workspaces, t]);

  return (
    <AdminSection
      id="workspaces"
      title={t.adminWorkspaces}
      loading={workspaces.loading}
      error={workspaces.error}
      onRefresh={workspaces.reload}
    >
      {error && <ErrorBanner message={error} />}
      <table className="admin-table" data-testid="admin-workspaces-table">
        <thead>
          <tr>
            <th>{t.adminColWorkspace}</th>
            <th>{t.adminColSlug}</th>
            <th className="num">{t.adminColMembers}</th>
            <th className="num">{t.adminColAgents}</th>
            <th>{t.adminColCreated}</th>
          </tr>
        </thead>
        <tbody>
          {workspaces.data?.items.map((w) => (
            <tr key={w.id} data-testid="admin-workspace-row" data-workspace-id={w.id}>
              <td className="cell-main">{w.name}</td>
              <td className="cell-sub">{w.slug}</td>
              <td className="num">{w.memberCount}</td>
              <td className="num">{w.agentCount}</td>
              <td>{formatDateTime(w.createdAt, locale)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {workspaces.data?.nextBefore && (
        <button type="button" className="button button-quiet" onClick={() => void loadMore()} disabled={loadingMore}>
          {loadingMore ? t.loading : t.loadMore}
        </button>
      )}
    </AdminSection>
  );
}
