'use client';

import { useId, useState, type FormEvent } from 'react';
import {
  VAULT_LABEL_MAX,
  VAULT_NOTES_MAX,
  type CreateVaultAccountRequest,
  type UpdateVaultAccountRequest,
  type VaultAccountView,
} from '@lazyboy/contracts';
import { vault as vaultApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { DialogFrame } from '../dialog';
import { FormError } from '../form-error';

interface VaultAccountDialogProps {
  /** The account to change; none: a new one, saved by `onCreate`. */
  account?: VaultAccountView;
  onCreate?: (body: CreateVaultAccountRequest) => Promise<VaultAccountView>;
  onSaved(account: VaultAccountView): void;
  onClose(): void;
}

/**
 * A saved login's form. The password and the TOTP secret are write-only: an edit starts them empty and
 * sends them only when something was typed (the TOTP secret can also be removed).
 */
export function VaultAccountDialog({ account, onCreate, onSaved, onClose }: VaultAccountDialogProps) {
  const t = useT();
  const [site, setSite] = useState(account?.site ?? '');
  const [username, setUsername] = useState(account?.username ?? '');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [removeTotp, setRemoveTotp] = useState(false);
  const [label, setLabel] = useState(account?.label ?? '');
  const [notes, setNotes] = useState(account?.notes ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { site: useId(), username: useId(), password: useId(), totp: useId(), label: useId(), notes: useId() };

  const changes: UpdateVaultAccountRequest = account
    ? {
        ...(site.trim() !== account.site ? { site: site.trim() } : {}),
        ...(username !== account.username ? { username } : {}),
        ...(password ? { password } : {}),
        ...(removeTotp ? { totp: null } : totp.trim() ? { totp: totp.trim() } : {}),
        ...(label.trim() !== account.label ? { label: label.trim() } : {}),
        ...(notes !== account.notes ? { notes } : {}),
      }
    : {};
  const complete = site.trim() !== '' && username !== '' && (account !== undefined || password !== '');
  const canSave = complete && (account === undefined || Object.keys(changes).length > 0);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!canSave || busy) return;
    setBusy(true);
    setError(null);
    try {
      if (account) onSaved(await vaultApi.update(account.id, changes));
      else if (onCreate)
        onSaved(
          await onCreate({
            site: site.trim(),
            username,
            password,
            ...(totp.trim() ? { totp: totp.trim() } : {}),
            ...(label.trim() ? { label: label.trim() } : {}),
            ...(notes ? { notes } : {}),
          }),
        );
    } catch (failure) {
      setError(errorText(failure, t));
      setBusy(false);
    }
  }

  return (
    <DialogFrame title={account ? t.vaultEditTitle : t.vaultAddTitle} testId="vault-account-dialog" onClose={onClose}>
      <form className="dialog-form vault-form" onSubmit={(event) => void submit(event)} autoComplete="off">
        <label htmlFor={ids.site} className="field-label">
          {t.vaultSite}
        </label>
        <input
          id={ids.site}
          data-testid="vault-site"
          type="text"
          inputMode="url"
          value={site}
          maxLength={2_048}
          required
          autoFocus
          spellCheck={false}
          placeholder="https://example.com"
          onChange={(event) => setSite(event.target.value)}
        />
        <p className="field-hint">{t.vaultSiteHint}</p>
        <label htmlFor={ids.username} className="field-label">
          {t.vaultUsername}
        </label>
        <input
          id={ids.username}
          data-testid="vault-username"
          value={username}
          maxLength={1_024}
          required
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          onChange={(event) => setUsername(event.target.value)}
        />
        <label htmlFor={ids.password} className="field-label">
          {t.vaultPassword}
        </label>
        {/* new-password: the person's browser must not fill its own saved password for this app in here. */}
        <input
          id={ids.password}
          data-testid="vault-password"
          type="password"
          value={password}
          maxLength={1_024}
          required={account === undefined}
          autoComplete="new-password"
          onChange={(event) => setPassword(event.target.value)}
        />
        <p className="field-hint">{account ? t.vaultPasswordKeep : t.vaultPasswordHint}</p>
        <label htmlFor={ids.totp} className="field-label">
          {t.vaultTotp}
        </label>
        <input
          id={ids.totp}
          data-testid="vault-totp"
          type="password"
          value={totp}
          maxLength={1_024}
          disabled={removeTotp}
          autoComplete="off"
          spellCheck={false}
          placeholder={account?.hasTotp ? '••••••••' : 'JBSWY3DPEHPK3PXP'}
          onChange={(event) => setTotp(event.target.value)}
        />
        <p className="field-hint">{account?.hasTotp ? t.vaultTotpStored : t.vaultTotpHint}</p>
        {account?.hasTotp && (
          <label className="choice">
            <input
              type="checkbox"
              data-testid="vault-totp-remove"
              checked={removeTotp}
              onChange={(event) => setRemoveTotp(event.target.checked)}
            />
            <span>{t.vaultTotpRemove}</span>
          </label>
        )}
        <label htmlFor={ids.label} className="field-label">
          {t.vaultLabel}
        </label>
        <input
          id={ids.label}
          data-testid="vault-label"
          value={label}
          maxLength={VAULT_LABEL_MAX}
          onChange={(event) => setLabel(event.target.value)}
        />
        <label htmlFor={ids.notes} className="field-label">
          {t.vaultNotes}
        </label>
        <textarea
          id={ids.notes}
          data-testid="vault-notes"
          className="settings-textarea"
          value={notes}
          rows={3}
          maxLength={VAULT_NOTES_MAX}
          onChange={(event) => setNotes(event.target.value)}
        />
        <FormError error={error} testId="vault-account-error" />
        <div className="form-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>
            {t.cancel}
          </button>
          <button type="submit" className="button button-primary" data-testid="vault-account-save" disabled={busy || !canSave}>
            {busy ? t.pleaseWait : t.save}
          </button>
        </div>
      </form>
    </DialogFrame>
  );
}
