'use client';

import { useCallback, useEffect, useState } from 'react';
import Link from 'next/link';
import type { AgentVaultView, AgentView } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { isAbort } from '../../lib/api';
import { vault as vaultApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { hasRole } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { useAgent } from '../../lib/use-agent';
import { AgentPending } from '../agent-pending';
import { Blobatar } from '../blobatar';
import { DrawerToggle } from '../drawer-toggle';
import { ErrorBanner } from '../error-banner';
import { SettingsSection } from '../settings/settings-frame';
import { VaultAccountList } from './vault-account-list';
import { VaultImport } from './vault-import';

/** /agents/[agentId]/vault: the agent's own saved logins, and the shared ones it may use. */
export function AgentVault({ agentId }: { agentId: string }) {
  const { agent, missing } = useAgent(agentId);
  if (!agent) return <AgentPending missing={missing} />;
  return <AgentVaultPage agent={agent} />;
}

function AgentVaultPage({ agent }: { agent: AgentView }) {
  const t = useT();
  const { workspace } = useShell();
  const owner = hasRole(workspace.role, 'owner');
  const [view, setView] = useState<AgentVaultView | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        setView(await vaultApi.ofAgent(agent.id, signal));
        setError(null);
      } catch (failure) {
        if (!isAbort(failure)) setError(failure);
      }
    },
    [agent.id],
  );
  useEffect(() => {
    const abort = new AbortController();
    void load(abort.signal);
    return () => abort.abort();
  }, [load]);

  return (
    <div className="settings-page" data-testid="agent-vault" data-agent-id={agent.id}>
      <header className="settings-header">
        <DrawerToggle />
        <Blobatar seed={agent.avatarSeed} size={40} />
        <div className="settings-header-text">
          <h1>{fill(t.vaultTitle, { name: agent.name })}</h1>
          <Link href={`/agents/${agent.id}`} className="settings-back" data-testid="agent-vault-back">
            ← {t.agentSettingsBack}
          </Link>
        </div>
      </header>
      <div className="settings-body">
        {error !== null && <ErrorBanner message={errorText(error, t)} onRetry={() => void load()} />}
        <SettingsSection title={t.vaultOwnTitle} description={t.vaultText} testId="vault-own">
          {view === null ? (
            error === null && <p className="chat-loading">{t.loading}</p>
          ) : (
            <VaultAccountList
              accounts={view.own}
              powers={{ write: true, reveal: owner }}
              testId="vault-own-list"
              emptyText={t.vaultOwnEmpty}
              create={(body) => vaultApi.createForAgent(agent.id, body)}
              onChange={(own) => setView((current) => current && { ...current, own })}
            />
          )}
        </SettingsSection>
        {view !== null && (
          <VaultImport importCsv={(csv) => vaultApi.importForAgent(agent.id, csv)} onImported={() => void load()} />
        )}
        <SettingsSection title={t.vaultSharedForAgentTitle} description={t.vaultSharedForAgentText} testId="vault-shared">
          {view !== null && (
            <VaultAccountList
              accounts={view.shared}
              // Shared logins are the owners' to change; everyone sees which ones the agent may use.
              powers={{ write: owner, reveal: owner }}
              testId="vault-shared-list"
              emptyText={t.vaultSharedForAgentEmpty}
              onChange={(shared) => setView((current) => current && { ...current, shared })}
            />
          )}
          {owner && (
            <div className="form-actions form-actions-start">
              <Link href="/settings/vault" className="button" data-testid="vault-manage-shared">
                {t.vaultManageShared}
              </Link>
            </div>
          )}
        </SettingsSection>
      </div>
    </div>
  );
}
