'use client';

import { useState } from 'react';
import type { AgentView, CreateVaultAccountRequest, VaultAccountView } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { vault as vaultApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { ConfirmDialog } from '../dialog';
import { ErrorBanner } from '../error-banner';
import { VaultAccountDialog } from './vault-account-dialog';
import { VaultCodeDialog } from './vault-code-dialog';
import { VaultGrants } from './vault-grants';
import { VaultRevealDialog } from './vault-reveal-dialog';

export interface VaultListPowers {
  /** Edit, delete, and see the current code. */
  write: boolean;
  /** Read the password back (owners, with their own password). */
  reveal: boolean;
  /** Shared logins in the workspace's settings (owners): the agents that may use each. */
  grantAgents?: AgentView[];
}

interface VaultAccountListProps {
  accounts: VaultAccountView[];
  powers: VaultListPowers;
  testId: string;
  emptyText: string;
  /** Saves a new account where this list keeps them; none: the list takes no new ones. */
  create?: (body: CreateVaultAccountRequest) => Promise<VaultAccountView>;
  onChange(accounts: VaultAccountView[]): void;
}

type Dialog = { kind: 'add' } | { kind: 'edit' | 'delete' | 'code' | 'reveal'; account: VaultAccountView };

/** A list of saved logins with what the person may do to each: never a password, but through Reveal. */
export function VaultAccountList({ accounts, powers, testId, emptyText, create, onChange }: VaultAccountListProps) {
  const t = useT();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const [rowError, setRowError] = useState<string | null>(null);

  function put(account: VaultAccountView) {
    const known = accounts.some((a) => a.id === account.id);
    onChange(known ? accounts.map((a) => (a.id === account.id ? account : a)) : [...accounts, account]);
  }

  function open(next: Dialog) {
    setDialogError(null);
    setDialog(next);
  }

  return (
    <>
      {rowError && <ErrorBanner message={rowError} />}
      {accounts.length === 0 ? (
        <p className="settings-section-text" data-testid={`${testId}-empty`}>
          {emptyText}
        </p>
      ) : (
        <ul className="member-list" data-testid={testId}>
          {accounts.map((account) => (
            <li key={account.id} className="member-row vault-row" data-testid="vault-row" data-account-id={account.id}>
              <AccountNames account={account} />
              <span className="member-actions">
                {account.hasTotp && powers.write && (
                  <button
                    type="button"
                    className="button button-small"
                    data-testid="vault-show-code"
                    aria-label={fill(t.vaultShowCodeOf, { site: account.site })}
                    onClick={() => open({ kind: 'code', account })}
                  >
                    {t.vaultShowCode}
                  </button>
                )}
                {powers.reveal && (
                  <button
                    type="button"
                    className="button button-small"
                    data-testid="vault-reveal"
                    aria-label={fill(t.vaultRevealOf, { site: account.site, username: account.username })}
                    onClick={() => open({ kind: 'reveal', account })}
                  >
                    {t.vaultReveal}
                  </button>
                )}
                {powers.write && (
                  <>
                    <button
                      type="button"
                      className="button button-small"
                      data-testid="vault-edit"
                      aria-label={fill(t.vaultEditOf, { site: account.site, username: account.username })}
                      onClick={() => open({ kind: 'edit', account })}
                    >
                      {t.vaultEdit}
                    </button>
                    <button
                      type="button"
                      className="button button-small button-danger-quiet"
                      data-testid="vault-delete"
                      aria-label={fill(t.vaultDeleteOf, { site: account.site, username: account.username })}
                      onClick={() => open({ kind: 'delete', account })}
                    >
                      {t.vaultDelete}
                    </button>
                  </>
                )}
              </span>
              {powers.grantAgents && (
                <VaultGrants
                  account={account}
                  agents={powers.grantAgents}
                  onSaved={put}
                  onError={(failure) => setRowError(failure === null ? null : errorText(failure, t))}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {create && (
        <div className="form-actions form-actions-start">
          <button type="button" className="button button-primary" data-testid="vault-add" onClick={() => open({ kind: 'add' })}>
            {t.vaultAdd}
          </button>
        </div>
      )}
      {dialog?.kind === 'edit' && (
        <VaultAccountDialog
          account={dialog.account}
          onSaved={(account) => {
            put(account);
            setDialog(null);
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'add' && create && (
        <VaultAccountDialog
          onCreate={create}
          onSaved={(account) => {
            put(account);
            setDialog(null);
          }}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={t.vaultDeleteTitle}
          body={fill(t.vaultDeleteConfirm, { site: dialog.account.site, username: dialog.account.username })}
          confirmLabel={t.vaultDelete}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            try {
              await vaultApi.remove(dialog.account.id);
              onChange(accounts.filter((a) => a.id !== dialog.account.id));
              setDialog(null);
            } catch (failure) {
              setDialogError(errorText(failure, t));
            }
          }}
        />
      )}
      {dialog?.kind === 'code' && <VaultCodeDialog account={dialog.account} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'reveal' && <VaultRevealDialog account={dialog.account} onClose={() => setDialog(null)} />}
    </>
  );
}

function AccountNames({ account }: { account: VaultAccountView }) {
  const t = useT();
  const locale = useLocale();
  return (
    <span className="member-names">
      <span className="member-name vault-site" data-testid="vault-row-site">
        {account.label || account.site.replace(/^https:\/\//, '')}
        {account.hasTotp && (
          <span className="pill vault-totp-pill" data-testid="vault-row-totp">
            {t.vaultHasTotp}
          </span>
        )}
      </span>
      <span className="member-email" data-testid="vault-row-username">
        {account.username}
        {account.label ? ` · ${account.site}` : ''}
      </span>
      <span className="member-email">
        {account.lastUsedAt ? fill(t.vaultLastUsed, { time: formatDateTime(account.lastUsedAt, locale) }) : t.vaultNeverUsed}
      </span>
    </span>
  );
}
