'use client';

import { useEffect, useId, useMemo, useState } from 'react';
import Link from 'next/link';
import type { WorkspaceView } from '@lazyboy/contracts';
import { isAbort } from '../../lib/api';
import { workspaces } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { canManage } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { ErrorBanner } from '../error-banner';
import { FormError } from '../form-error';
import { SaveActions, SettingsSection } from './settings-frame';
import { useSettingsSave } from './use-settings-save';
import { WorkspaceModelSection } from './workspace-model-section';

/** /settings: the workspace's name, time zone and model, for owners and admins. */
export function WorkspaceSettings() {
  const t = useT();
  const { workspace } = useShell();
  const [view, setView] = useState<WorkspaceView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [attempt, setAttempt] = useState(0);
  const manager = canManage(workspace.role);

  useEffect(() => {
    if (!manager) return;
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
  }, [workspace.id, attempt, manager]);

  if (!manager) return <MembersOnlyNote />;
  if (error !== null) return <ErrorBanner message={errorText(error, t)} onRetry={() => setAttempt((n) => n + 1)} />;
  if (!view) return <p className="chat-loading">{t.loading}</p>;
  return (
    <>
      <GeneralSection view={view} onSaved={setView} />
      <WorkspaceModelSection view={view} onSaved={setView} />
    </>
  );
}

/** Every IANA zone this browser knows, for suggestions; the API checks the name against its own list. */
function useTimeZones(): string[] {
  return useMemo(() => {
    try {
      return Intl.supportedValuesOf('timeZone');
    } catch {
      return [];
    }
  }, []);
}

function GeneralSection({ view, onSaved }: { view: WorkspaceView; onSaved(view: WorkspaceView): void }) {
  const t = useT();
  const { refreshMe } = useShell();
  const zones = useTimeZones();
  const [name, setName] = useState(view.name);
  const [timezone, setTimezone] = useState(view.timezone);
  const ids = { name: useId(), timezone: useId(), zones: useId() };
  const changes = {
    ...(name.trim() !== view.name ? { name: name.trim() } : {}),
    ...(timezone.trim() !== view.timezone ? { timezone: timezone.trim() } : {}),
  };
  const dirty = Object.keys(changes).length > 0;

  const save = useSettingsSave({
    canSave: dirty && name.trim() !== '' && timezone.trim() !== '',
    save: () => workspaces.update(view.id, changes),
    onSaved: (next) => {
      onSaved(next);
      setName(next.name);
      setTimezone(next.timezone);
      // The sidebar's workspace switcher shows the name from the person's workspace list.
      if (changes.name) refreshMe();
    },
  });

  return (
    <SettingsSection title={t.settingsGeneral} testId="settings-general">
      <form className="settings-form" onSubmit={(event) => void save.submit(event)}>
        <label htmlFor={ids.name} className="field-label">
          {t.settingsWorkspaceName}
        </label>
        <input
          id={ids.name}
          data-testid="settings-workspace-name"
          value={name}
          maxLength={80}
          required
          onChange={(event) => {
            setName(event.target.value);
            save.markDirty();
          }}
        />
        <label htmlFor={ids.timezone} className="field-label">
          {t.settingsTimezone}
        </label>
        <input
          id={ids.timezone}
          data-testid="settings-timezone"
          value={timezone}
          list={ids.zones}
          maxLength={64}
          required
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => {
            setTimezone(event.target.value);
            save.markDirty();
          }}
        />
        <datalist id={ids.zones}>
          {zones.map((zone) => (
            <option key={zone} value={zone} />
          ))}
        </datalist>
        <p className="field-hint">{t.settingsTimezoneHint}</p>
        <FormError error={save.error} />
        <SaveActions
          saved={save.saved && !dirty}
          saving={save.pending === 'save'}
          disabled={save.pending !== null || !dirty || !name.trim()}
          testId="settings-general-save"
        />
      </form>
    </SettingsSection>
  );
}

/**
 * What a member finds at /settings (a bookmark, a link a colleague sent): the settings are not theirs to
 * open. Who the owners are is on the members page.
 */
function MembersOnlyNote() {
  const t = useT();
  return (
    <div className="settings-refusal" role="alert" data-testid="settings-members-only">
      <p>{t.settingsOwnersOnly}</p>
      <Link href="/settings/members" className="button button-small" data-testid="settings-members-only-link">
        {t.settingsSeeMembers}
      </Link>
    </div>
  );
}
