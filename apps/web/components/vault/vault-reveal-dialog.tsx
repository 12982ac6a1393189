'use client';

import { useId, useState, type FormEvent } from 'react';
import type { VaultAccountView, VaultRevealView } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { copyText } from '../../lib/copy-text';
import { vault as vaultApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { DialogFrame } from '../dialog';
import { FormError } from '../form-error';

/**
 * An owner reads a saved login's password and TOTP secret back after typing their own sign-in password.
 * What was revealed lives in this dialog's state only: closing it forgets it.
 */
export function VaultRevealDialog({ account, onClose }: { account: VaultAccountView; onClose(): void }) {
  const t = useT();
  const [own, setOwn] = useState('');
  const [revealed, setRevealed] = useState<VaultRevealView | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!own || busy) return;
    setBusy(true);
    setError(null);
    try {
      setRevealed(await vaultApi.reveal(account.id, own));
      setOwn('');
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <DialogFrame title={fill(t.vaultRevealTitle, { site: account.site })} testId="vault-reveal-dialog" onClose={onClose}>
      {revealed ? (
        <>
          <p className="dialog-body">{account.username}</p>
          <Secret label={t.vaultRevealedPassword} value={revealed.password} testId="vault-revealed-password" />
          {revealed.totpSecret !== null && (
            <Secret label={t.vaultRevealedTotp} value={revealed.totpSecret} testId="vault-revealed-totp" />
          )}
          <p className="field-hint">{t.vaultRevealHide}</p>
          <div className="form-actions">
            <button type="button" className="button button-primary" data-testid="vault-reveal-close" onClick={onClose}>
              {t.done}
            </button>
          </div>
        </>
      ) : (
        <form className="dialog-form" onSubmit={(event) => void submit(event)}>
          <p className="dialog-body">{t.vaultRevealText}</p>
          <label htmlFor={inputId} className="field-label">
            {t.vaultYourPassword}
          </label>
          <input
            id={inputId}
            data-testid="vault-reveal-own-password"
            type="password"
            value={own}
            maxLength={1_024}
            required
            autoFocus
            autoComplete="current-password"
            onChange={(event) => setOwn(event.target.value)}
          />
          <FormError error={error} testId="vault-reveal-error" />
          <div className="form-actions">
            <button type="button" className="button button-quiet" onClick={onClose}>
              {t.cancel}
            </button>
            <button type="submit" className="button button-primary" data-testid="vault-reveal-submit" disabled={busy || !own}>
              {busy ? t.pleaseWait : t.vaultRevealShow}
            </button>
          </div>
        </form>
      )}
    </DialogFrame>
  );
}

function Secret({ label, value, testId }: { label: string; value: string; testId: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  return (
    <div className="vault-secret">
      <span className="field-label">{label}</span>
      <div className="vault-secret-row">
        <code data-testid={testId}>{value}</code>
        <button type="button" className="button button-small" onClick={() => void copyText(value).then(setCopied)}>
          {copied ? t.copied : t.copy}
        </button>
      </div>
    </div>
  );
}
