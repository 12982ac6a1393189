'use client';

import { useEffect, useId, useState, type FormEvent } from 'react';
import type { WorkspaceView } from '@lazyboy/contracts';
import { isAbort } from '../../lib/api';
import { workspaces } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { canManage } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { ErrorBanner } from '../error-banner';
import { AskAnOwner, SavedNote, SettingsSection } from './settings-frame';

/** /settings: the workspace's name, and for owners and admins the rest of its settings. */
export function WorkspaceSettings() {
  const t = useT();
  const { workspace } = useShell();
  const [view, setView] = useState<WorkspaceView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const manager = canManage(workspace.role);

  useEffect(() => {
    const abort = new AbortController();
    workspaces
      .get(workspace.id, abort.signal)
      .then((loaded) => {
        setView(loaded);
        setError(null);
      })
      .catch((failure: unknown) => {
        if (!isAbort(failure)) setError(failure);
      });
    return () => abort.abort();
  }, [workspace.id, attempt]);

  if (error !== null) return <ErrorBanner message={errorText(error, t)} onRetry={() => setAttempt((n) => n + 1)} />;
  if (!view) return <p className="chat-loading">{t.loading}</p>;
  return (
    <>
      {!manager && <AskAnOwner text={t.settingsMemberNote} />}
      <GeneralSection view={view} manager={manager} onSaved={setView} />
    </>
  );
}

function GeneralSection({
  view,
  manager,
  onSaved,
}: {
  view: WorkspaceView;
  manager: boolean;
  onSaved(view: WorkspaceView): void;
}) {
  const t = useT();
  const { refreshMe } = useShell();
  const [name, setName] = useState(view.name);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nameId = useId();
  const dirty = name.trim() !== view.name;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!dirty || busy || !name.trim()) return;
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const next = await workspaces.update(view.id, { name: name.trim() });
      onSaved(next);
      setName(next.name);
      setSaved(true);
      // The sidebar's workspace switcher shows the name from the person's workspace list.
      refreshMe();
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <SettingsSection title={t.settingsGeneral} testId="settings-general">
      <form className="settings-form" onSubmit={(event) => void submit(event)}>
        <label htmlFor={nameId} className="field-label">
          {t.settingsWorkspaceName}
        </label>
        {manager ? (
          <input
            id={nameId}
            data-testid="settings-workspace-name"
            value={name}
            maxLength={80}
            required
            onChange={(event) => {
              setName(event.target.value);
              setSaved(false);
            }}
          />
        ) : (
          <p id={nameId} className="settings-value" data-testid="settings-workspace-name-value">
            {view.name}
          </p>
        )}
        <p className="field-label">{t.settingsTimezone}</p>
        <p className="settings-value" data-testid="settings-timezone-value">
          {view.timezone}
        </p>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {manager && (
          <div className="form-actions">
            <SavedNote shown={saved && !dirty} />
            <button
              type="submit"
              className="button button-primary"
              data-testid="settings-general-save"
              disabled={busy || !dirty || !name.trim()}
            >
              {busy ? t.pleaseWait : t.save}
            </button>
          </div>
        )}
      </form>
    </SettingsSection>
  );
}
