'use client';

import { useState } from 'react';
import type { AgentView, VaultAccountView } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { vault as vaultApi } from '../../lib/endpoints';
import { useT } from '../../lib/i18n';

interface VaultGrantsProps {
  account: VaultAccountView;
  agents: AgentView[];
  onSaved(account: VaultAccountView): void;
  /** null: the last change went through. */
  onError(failure: unknown): void;
}

/** Which agents may use a shared login: a box per agent, each tick saved at once (undone if refused). */
export function VaultGrants({ account, agents, onSaved, onError }: VaultGrantsProps) {
  const t = useT();
  // The ticks as the person left them, shown at once while the change is saved; null: as the account says.
  const [intended, setIntended] = useState<Set<string> | null>(null);
  const busy = intended !== null;
  const granted = intended ?? new Set(account.agentIds);
  const summary = granted.size === 0 ? t.vaultGrantsNone : fill(t.vaultGrantsCount, { count: granted.size });

  async function toggle(agentId: string, on: boolean) {
    const next = new Set(granted);
    if (on) next.add(agentId);
    else next.delete(agentId);
    setIntended(next);
    try {
      onSaved(await vaultApi.setGrants(account.id, [...next]));
      onError(null);
    } catch (failure) {
      onError(failure);
    } finally {
      setIntended(null);
    }
  }

  return (
    <details className="settings-more vault-grants" data-testid="vault-grants">
      <summary data-testid="vault-grants-summary">{summary}</summary>
      <fieldset className="choice-group" disabled={busy} aria-busy={busy} data-testid="vault-grants-choices">
        <legend className="visually-hidden">{fill(t.vaultGrantsOf, { site: account.site, username: account.username })}</legend>
        {agents.length === 0 && <p className="field-hint">{t.vaultNoAgents}</p>}
        {agents.map((agent) => (
          <label key={agent.id} className="choice">
            <input
              type="checkbox"
              data-testid="vault-grant"
              data-agent-id={agent.id}
              checked={granted.has(agent.id)}
              onChange={(event) => void toggle(agent.id, event.target.checked)}
            />
            <span>{agent.name}</span>
          </label>
        ))}
      </fieldset>
    </details>
  );
}
