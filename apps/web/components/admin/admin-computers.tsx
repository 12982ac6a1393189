'use client';

import { useState } from 'react';
import type { AdminComputerListView, AdminComputerView } from '@lazyboy/contracts';
import { admin } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatBytes, formatDateTime } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { ErrorBanner } from '../error-banner';
import { AdminSection } from './admin-section';
import type { AdminData } from './use-admin-data';

export function AdminComputers({ computers }: { computers: AdminData<AdminComputerListView> }) {
  const t = useT();
  const locale = useLocale();
  const [busyId, setBusyId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function stop(computer: AdminComputerView) {
    setBusyId(computer.id);
    setError(null);
    try {
      const changed = await admin.stopComputer(computer.id);
      computers.set((list) => list && { items: list.items.map((c) => (c.id === changed.id ? changed : c)) });
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setBusyId(null);
    }
  }

  return (
    <AdminSection
      id="computers"
      title={t.adminComputers}
      loading={computers.loading}
      error={computers.error}
      onRefresh={computers.reload}
    >
      {error && <ErrorBanner message={error} />}
      <table className="admin-table" data-testid="admin-computers-table">
        <thead>
          <tr>
            <th>{t.adminColComputer}</th>
            <th>{t.adminColState}</th>
            <th>{t.adminColDisplays}</th>
            <th className="num">{t.adminColMemory}</th>
            <th>{t.adminColBooted}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {computers.data?.items.map((c) => (
            <tr key={c.id} data-testid="admin-computer-row" data-computer-id={c.id} data-state={c.state}>
              <td>
                <div className="cell-main">{c.agentName ?? t.teamComputer}</div>
                <div className="cell-sub">
                  {c.workspaceName} · {c.kind === 'team' ? t.computerModeTeam : t.computerModePrivate}
                </div>
              </td>
              <td>
                <span className={`pill pill-state-${c.state}`}>{t[`computerState_${c.state}`]}</span>
                {c.errorMessage && <div className="cell-sub cell-error">{c.errorMessage}</div>}
              </td>
              <td>
                {c.screens.length === 0
                  ? '—'
                  : c.screens.map((s) => (
                      <div key={s.id} className="cell-sub">
                        :{s.display} · {s.controlHolder === 'user' ? t.controlUser : t.controlAgent}
                      </div>
                    ))}
              </td>
              <td className="num">{formatBytes(c.memoryBytes, locale)}</td>
              <td>{formatDateTime(c.bootedAt, locale)}</td>
              <td>
                {c.state !== 'stopped' && (
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    data-testid="admin-stop-computer"
                    disabled={busyId === c.id}
                    onClick={() => void stop(c)}
                  >
                    {t.stop}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </AdminSection>
  );
}
