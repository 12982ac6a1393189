'use client';

import { useCallback, useState } from 'react';
import { runStatusSchema, type AdminRunListView, type RunStatus, type RunView } from '@lazyboy/contracts';
import { ApiError } from '../../lib/api';
import { agentStatus, isFinalRun } from '../../lib/agent-status';
import { agentStatusLabel } from '../../lib/agent-status-label';
import { admin } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatDateTime, formatDuration } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { runErrorText } from '../../lib/run-error-text';
import { ErrorBanner } from '../error-banner';
import { AdminSection } from './admin-section';
import { useAdminData } from './use-admin-data';

const STATUSES: readonly RunStatus[] = runStatusSchema.options;

function duration(run: RunView): string {
  const start = run.startedAt ?? run.createdAt;
  const end = run.finishedAt ? Date.parse(run.finishedAt) : Date.now();
  return formatDuration(end - Date.parse(start));
}

export function AdminRuns() {
  const t = useT();
  const locale = useLocale();
  const [status, setStatus] = useState<RunStatus | ''>('');
  const load = useCallback((signal: AbortSignal) => admin.runs(status || undefined, signal), [status]);
  const runs = useAdminData<AdminRunListView>(load);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function stop(run: RunView) {
    setBusyId(run.id);
    setError(null);
    try {
      const changed = await admin.stopRun(run.id);
      runs.set((list) => list && { items: list.items.map((r) => (r.id === changed.id ? { ...r, ...changed } : r)) });
    } catch (failure) {
      // Already over: the refreshed list shows how it ended.
      if (failure instanceof ApiError && failure.code === 'CONFLICT') runs.reload();
      else setError(errorText(failure, t));
    } finally {
      setBusyId(null);
    }
  }

  const filter = (
    <select
      data-testid="admin-runs-status"
      aria-label={t.adminColStatus}
      value={status}
      onChange={(event) => setStatus(event.target.value as RunStatus | '')}
    >
      <option value="">{t.adminAllStatuses}</option>
      {STATUSES.map((s) => (
        <option key={s} value={s}>
          {t[`runStatus_${s}`]}
        </option>
      ))}
    </select>
  );

  return (
    <AdminSection id="runs" title={t.adminRuns} loading={runs.loading} error={runs.error} onRefresh={runs.reload} tools={filter}>
      {error && <ErrorBanner message={error} />}
      <table className="admin-table" data-testid="admin-runs-table">
        <thead>
          <tr>
            <th>{t.adminColStatus}</th>
            <th>{t.adminColAgent}</th>
            <th>{t.adminColStep}</th>
            <th>{t.adminColCreated}</th>
            <th className="num">{t.adminColDuration}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.data?.items.map((run) => (
            <tr key={run.id} data-testid="admin-run-row" data-run-id={run.id} data-status={run.status}>
              <td>
                <span className={`pill pill-run-${run.status}`}>{t[`runStatus_${run.status}`]}</span>
                {run.cancelRequested && !isFinalRun(run) && <div className="cell-sub">{t.stopping}</div>}
              </td>
              <td>
                <div className="cell-main">{run.agentName}</div>
                <div className="cell-sub">{run.workspaceName}</div>
              </td>
              <td className="cell-sub">
                {run.errorCode || run.errorMessage ? (
                  // The service's own words are English and for diagnosis: a tooltip, under the person's language.
                  <span data-testid="admin-run-error" title={run.errorMessage ?? undefined}>
                    {runErrorText(run.errorCode ?? 'execution_failed', t)}
                  </span>
                ) : run.busyStep ? (
                  agentStatusLabel(agentStatus(run), t)
                ) : (
                  '—'
                )}
              </td>
              <td>{formatDateTime(run.createdAt, locale)}</td>
              <td className="num">{duration(run)}</td>
              <td>
                {!isFinalRun(run) && (
                  <button
                    type="button"
                    className="button button-small button-danger-quiet"
                    data-testid="admin-stop-run"
                    disabled={busyId === run.id || run.cancelRequested}
                    onClick={() => void stop(run)}
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
