'use client';

import { useId, useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import type { ComputerMode } from '@lazyboy/contracts';
import { agents as agentsApi } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { randomToken } from '../lib/random-token';
import { useShell } from '../lib/shell-context';
import { Blobatar } from './blobatar';

/** "New agent": a button that opens a small form (name, computer kind, a face to pick by shuffling). */
/** `testIdPrefix` keeps the test ids unique when the home page shows a second one beside the sidebar's. */
export function NewAgentForm({ testIdPrefix = 'new-agent' }: { testIdPrefix?: string }) {
  const t = useT();
  const router = useRouter();
  const { workspace, putAgent } = useShell();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [mode, setMode] = useState<ComputerMode>('team');
  const [seed, setSeed] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nameId = useId();
  const modeId = useId();

  function start() {
    setOpen(true);
    setName('');
    setError(null);
    setSeed(randomToken(8));
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed || busy) return;
    setBusy(true);
    setError(null);
    try {
      const agent = await agentsApi.create(workspace.id, { name: trimmed, avatarSeed: seed, computerMode: mode });
      putAgent(agent);
      setOpen(false);
      router.push(`/agents/${agent.id}`);
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setBusy(false);
    }
  }

  if (!open) {
    return (
      <button type="button" className="button button-small" data-testid={`${testIdPrefix}-button`} onClick={start}>
        ＋ {t.newAgent}
      </button>
    );
  }
  return (
    <form className="new-agent-form" data-testid={`${testIdPrefix}-form`} onSubmit={(event) => void submit(event)}>
      <div className="new-agent-face">
        <Blobatar seed={seed || 'new'} size={48} />
        <button type="button" className="button-link" onClick={() => setSeed(randomToken(8))}>
          {t.shuffleAvatar}
        </button>
      </div>
      <label htmlFor={nameId} className="field-label">
        {t.agentName}
      </label>
      <input
        id={nameId}
        data-testid={`${testIdPrefix}-name`}
        value={name}
        maxLength={80}
        required
        autoFocus
        placeholder={t.agentNamePlaceholder}
        onChange={(event) => setName(event.target.value)}
      />
      <label htmlFor={modeId} className="field-label">
        {t.computerMode}
      </label>
      <select
        id={modeId}
        data-testid={`${testIdPrefix}-mode`}
        value={mode}
        onChange={(event) => setMode(event.target.value as ComputerMode)}
      >
        <option value="team">{t.computerModeTeam}</option>
        <option value="private">{t.computerModePrivate}</option>
      </select>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="button button-quiet" onClick={() => setOpen(false)}>
          {t.cancel}
        </button>
        <button
          type="submit"
          className="button button-primary"
          data-testid={`${testIdPrefix}-submit`}
          disabled={busy || !name.trim()}
        >
          {busy ? t.creating : t.create}
        </button>
      </div>
    </form>
  );
}
