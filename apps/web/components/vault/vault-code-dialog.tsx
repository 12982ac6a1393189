'use client';

import { useEffect, useState } from 'react';
import type { VaultAccountView, VaultTotpCodeView } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { copyText } from '../../lib/copy-text';
import { vault as vaultApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { DialogFrame } from '../dialog';
import { FormError } from '../form-error';

/**
 * The current one-time code of a saved login, for a person signing in by hand: counted down each second and
 * fetched again when it changes (each fetch is audited), for as long as the dialog is open.
 */
export function VaultCodeDialog({ account, onClose }: { account: VaultAccountView; onClose(): void }) {
  const t = useT();
  const [code, setCode] = useState<VaultTotpCodeView | null>(null);
  const [left, setLeft] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  // Bumped when the code runs out: the effect below fetches the next one.
  const [round, setRound] = useState(0);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setInterval> | undefined;
    vaultApi.code(account.id).then(
      (next) => {
        if (!live) return;
        setCode(next);
        setError(null);
        setCopied(false);
        const ends = Date.now() + next.expiresInSeconds * 1_000;
        setLeft(next.expiresInSeconds);
        timer = setInterval(() => {
          const seconds = Math.max(0, Math.ceil((ends - Date.now()) / 1_000));
          setLeft(seconds);
          if (seconds === 0) {
            clearInterval(timer);
            setRound((r) => r + 1);
          }
        }, 1_000);
      },
      (failure: unknown) => {
        if (live) setError(errorText(failure, t));
      },
    );
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [account.id, round, t]);

  return (
    <DialogFrame title={fill(t.vaultCodeTitle, { site: account.site })} testId="vault-code-dialog" onClose={onClose}>
      <p className="dialog-body">{t.vaultCodeText}</p>
      {code && (
        <div className="vault-code-box">
          <output className="vault-code" data-testid="vault-code" aria-live="polite">
            {code.code}
          </output>
          <span className="vault-code-left" data-testid="vault-code-left">
            {fill(t.vaultCodeExpires, { seconds: left })}
          </span>
          <button
            type="button"
            className="button button-small"
            data-testid="vault-code-copy"
            onClick={() => void copyText(code.code).then(setCopied)}
          >
            {copied ? t.copied : t.copy}
          </button>
        </div>
      )}
      <FormError error={error} testId="vault-code-error" />
      <div className="form-actions">
        <button type="button" className="button button-primary" data-testid="vault-code-close" onClick={onClose}>
          {t.done}
        </button>
      </div>
    </DialogFrame>
  );
}
