'use client';

import { useCallback, useEffect, useState } from 'react';
import type { CreateVaultAccountRequest, VaultAccountView } from '@lazyboy/contracts';
import { isAbort } from '../../lib/api';
import { vault as vaultApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { hasRole } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { ErrorBanner } from '../error-banner';
import { AskAnOwner, SettingsSection } from '../settings/settings-frame';
import { VaultAccountList } from './vault-account-list';
import { VaultImport } from './vault-import';

/** /settings/vault: the workspace's shared logins; owners add and change them and pick the agents for each. */
export function SharedVaultSettings() {
  const t = useT();
  const { workspace, agents } = useShell();
  const owner = hasRole(workspace.role, 'owner');
  const [accounts, setAccounts] = useState<VaultAccountView[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        setAccounts(await vaultApi.shared(workspace.id, signal));
        setError(null);
      } catch (failure) {
        if (!isAbort(failure)) setError(failure);
      }
    },
    [workspace.id],
  );
  useEffect(() => {
    const abort = new AbortController();
    void load(abort.signal);
    return () => abort.abort();
  }, [load]);

  return (
    <>
      {!owner && <AskAnOwner text={t.vaultSharedMemberNote} />}
      <SettingsSection title={t.vaultSharedTitle} description={t.vaultSharedText} testId="vault-shared-settings">
        {error !== null && <ErrorBanner message={errorText(error, t)} onRetry={() => void load()} />}
        {accounts === null ? (
          error === null && <p className="chat-loading">{t.loading}</p>
        ) : (
          <VaultAccountList
            accounts={accounts}
            powers={{ write: owner, reveal: owner, ...(owner ? { grantAgents: agents ?? [] } : {}) }}
            testId="vault-shared-list"
            emptyText={t.vaultSharedEmpty}
            {...(owner ? { create: (body: CreateVaultAccountRequest) => vaultApi.createShared(workspace.id, body) } : {})}
            onChange={setAccounts}
          />
        )}
      </SettingsSection>
      {owner && accounts !== null && (
        <VaultImport importCsv={(csv) => vaultApi.importShared(workspace.id, csv)} onImported={() => void load()} />
      )}
    </>
  );
}
