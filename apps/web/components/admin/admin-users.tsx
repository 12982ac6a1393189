'use client';

import { useCallback, useState } from 'react';
import type { AdminUserListView, AdminUserView, UpdateAdminUserRequest } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { admin } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { ConfirmDialog } from '../dialog';
import { ErrorBanner } from '../error-banner';
import { AdminSection } from './admin-section';
import { useAdminData } from './use-admin-data';

export function AdminUsers({ selfId }: { selfId: string }) {
  const t = useT();
  const locale = useLocale();
  const load = useCallback((signal: AbortSignal) => admin.users(undefined, signal), []);
  const users = useAdminData<AdminUserListView>(load);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [disabling, setDisabling] = useState<AdminUserView | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  async function update(user: AdminUserView, body: UpdateAdminUserRequest) {
    setBusyId(user.id);
    setActionError(null);
    try {
      const changed = await admin.updateUser(user.id, body);
      users.set((list) => list && { ...list, items: list.items.map((u) => (u.id === changed.id ? changed : u)) });
    } catch (error) {
      setActionError(errorText(error, t));
    } finally {
      setBusyId(null);
    }
  }

  async function loadMore() {
    const before = users.data?.nextBefore;
    if (!before) return;
    setLoadingMore(true);
    try {
      const page = await admin.users(before);
      users.set((list) => list && { items: [...list.items, ...page.items], nextBefore: page.nextBefore });
    } catch (error) {
      setActionError(errorText(error, t));
    } finally {
      setLoadingMore(false);
    }
  }

  return (
    <AdminSection id="users" title={t.adminUsers} loading={users.loading} error={users.error} onRefresh={users.reload}>
      {actionError && <ErrorBanner message={actionError} />}
      <table className="admin-table" data-testid="admin-users-table">
        <thead>
          <tr>
            <th>{t.adminColUser}</th>
            <th>{t.adminColWorkspaces}</th>
            <th>{t.adminColLastLogin}</th>
            <th>{t.adminColCreated}</th>
            <th>{t.adminColAdmin}</th>
            <th>{t.adminColAccount}</th>
          </tr>
        </thead>
        <tbody>
          {users.data?.items.map((user) => {
            const self = user.id === selfId;
            const busy = busyId === user.id;
            return (
              <tr
                key={user.id}
                data-testid="admin-user-row"
                data-user-id={user.id}
                data-disabled={user.disabledAt ? 'true' : undefined}
              >
                <td>
                  <div className="cell-main">{user.displayName}</div>
                  <div className="cell-sub">{user.email}</div>
                </td>
                <td>
                  {user.memberships.length === 0
                    ? '—'
                    : user.memberships.map((m) => (
                        <div key={m.workspaceId} className="cell-sub">
                          {m.workspaceName} · {t[`role_${m.role}`]}
                        </div>
                      ))}
                </td>
                <td>{formatDateTime(user.lastLoginAt, locale)}</td>
                <td>{formatDateTime(user.createdAt, locale)}</td>
                <td>
                  <button
                    type="button"
                    className={user.isAdmin ? 'button button-small button-toggle is-on' : 'button button-small button-toggle'}
                    data-testid="admin-toggle-admin"
                    aria-pressed={user.isAdmin}
                    disabled={self || busy}
                    title={self ? t.adminNotYourself : undefined}
                    onClick={() => void update(user, { isAdmin: !user.isAdmin })}
                  >
                    {user.isAdmin ? t.adminIsAdmin : t.adminNotAdmin}
                  </button>
                </td>
                <td>
                  <span className={user.disabledAt ? 'pill pill-bad' : 'pill pill-good'}>
                    {user.disabledAt ? t.adminDisabled : t.adminActive}
                  </span>{' '}
                  <button
                    type="button"
                    className="button button-small"
                    data-testid="admin-toggle-disabled"
                    disabled={self || busy}
                    title={self ? t.adminNotYourself : undefined}
                    onClick={() => (user.disabledAt ? void update(user, { disabled: false }) : setDisabling(user))}
                  >
                    {user.disabledAt ? t.adminEnable : t.adminDisable}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {users.data?.nextBefore && (
        <button type="button" className="button button-quiet" onClick={() => void loadMore()} disabled={loadingMore}>
          {loadingMore ? t.loading : t.loadMore}
        </button>
      )}
      {disabling && (
        <ConfirmDialog
          title={t.adminDisable}
          body={fill(t.adminDisableConfirm, { email: disabling.email })}
          confirmLabel={t.adminDisable}
          danger
          onClose={() => setDisabling(null)}
          onConfirm={async () => {
            const user = disabling;
            setDisabling(null);
            await update(user, { disabled: true });
          }}
        />
      )}
    </AdminSection>
  );
}
