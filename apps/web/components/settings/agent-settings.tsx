'use client';

import { useId, useState } from 'react';
import Link from 'next/link';
import type { AgentModelSettings, AgentView, ComputerMode, ModelProvider, UpdateAgentRequest } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { agents as agentsApi } from '../../lib/endpoints';
import { useT } from '../../lib/i18n';
import { PROVIDER_LABEL, PROVIDER_SHORT, baseUrlOptional } from '../../lib/model-providers';
import { randomToken } from '../../lib/random-token';
import { runErrorText } from '../../lib/run-error-text';
import { canManage } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { useAgent } from '../../lib/use-agent';
import { AgentPending } from '../agent-pending';
import { Blobatar } from '../blobatar';
import { DrawerToggle } from '../drawer-toggle';
import { FormError } from '../form-error';
import { ApiKeyField, KEEP_KEY, keyRequest, type KeyChange } from './api-key-field';
import { ModelNameField } from './model-name-field';
import { AskAnOwner, SaveActions, SettingsSection } from './settings-frame';
import { useSettingsSave } from './use-settings-save';

/** An agent's own endpoint needs HTTP: a GGUF file is the server's business (LAZYBOY_MODEL_PATH). */
const OVERRIDE_PROVIDERS: ModelProvider[] = ['openai-chat', 'xai', 'openai-responses'];

/** /agents/[agentId]/settings: the agent's name, face, instructions, computer and its own model. */
export function AgentSettings({ agentId }: { agentId: string }) {
  const t = useT();
  const { workspace } = useShell();
  const { agent, missing } = useAgent(agentId);
  if (!agent) return <AgentPending missing={missing} />;
  return (
    <div className="settings-page" data-testid="agent-settings" data-agent-id={agent.id}>
      <header className="settings-header">
        <DrawerToggle />
        <Blobatar seed={agent.avatarSeed} size={40} />
        <div className="settings-header-text">
          <h1>{fill(t.agentSettingsTitle, { name: agent.name })}</h1>
          <Link href={`/agents/${agent.id}`} className="settings-back" data-testid="agent-settings-back">
            ← {t.agentSettingsBack}
          </Link>
        </div>
      </header>
      <div className="settings-body">
        <ProfileSection agent={agent} />
        <ModelOverrideSection agent={agent} manager={canManage(workspace.role)} />
        <SettingsSection title={t.vaultLink} description={t.vaultText} testId="agent-vault-section">
          <div className="form-actions form-actions-start">
            <Link href={`/agents/${agent.id}/vault`} className="button" data-testid="agent-vault-open">
              {t.vaultOpen}
            </Link>
          </div>
        </SettingsSection>
      </div>
    </div>
  );
}

function ProfileSection({ agent }: { agent: AgentView }) {
  const t = useT();
  const { putAgent } = useShell();
  const [name, setName] = useState(agent.name);
  const [seed, setSeed] = useState(agent.avatarSeed);
  const [instructions, setInstructions] = useState(agent.instructions);
  const [mode, setMode] = useState<ComputerMode>(agent.computerMode);
  const ids = { name: useId(), instructions: useId(), mode: useId() };

  const changes: UpdateAgentRequest = {
    ...(name.trim() !== agent.name ? { name: name.trim() } : {}),
    ...(seed !== agent.avatarSeed ? { avatarSeed: seed } : {}),
    ...(instructions !== agent.instructions ? { instructions } : {}),
    ...(mode !== agent.computerMode ? { computerMode: mode } : {}),
  };
  const dirty = Object.keys(changes).length > 0;

  const save = useSettingsSave({
    canSave: dirty && name.trim() !== '',
    save: () => agentsApi.update(agent.id, changes),
    onSaved: (updated) => {
      putAgent(updated);
      setName(updated.name);
      setSeed(updated.avatarSeed);
      setInstructions(updated.instructions);
      setMode(updated.computerMode);
    },
  });

  return (
    <SettingsSection title={t.agentProfile} testId="agent-profile">
      <form className="settings-form" onSubmit={(event) => void save.submit(event)}>
        <div className="avatar-picker">
          <Blobatar seed={seed} size={64} />
          <button
            type="button"
            className="button button-small"
            data-testid="agent-avatar-shuffle"
            onClick={() => setSeed(randomToken(8))}
          >
            {t.shuffleAvatar}
          </button>
          {seed !== agent.avatarSeed && (
            <button type="button" className="button-link" onClick={() => setSeed(agent.avatarSeed)}>
              {t.undo}
            </button>
          )}
        </div>
        <label htmlFor={ids.name} className="field-label">
          {t.agentName}
        </label>
        <input
          id={ids.name}
          data-testid="agent-name"
          value={name}
          maxLength={80}
          required
          onChange={(event) => setName(event.target.value)}
        />
        <label htmlFor={ids.instructions} className="field-label">
          {t.agentInstructions}
        </label>
        <textarea
          id={ids.instructions}
          data-testid="agent-instructions"
          className="settings-textarea"
          value={instructions}
          maxLength={20_000}
          rows={6}
          placeholder={t.agentInstructionsPlaceholder}
          onChange={(event) => setInstructions(event.target.value)}
        />
        <p className="field-hint">{t.agentInstructionsHint}</p>
        <label htmlFor={ids.mode} className="field-label">
          {t.computerMode}
        </label>
        <select
          id={ids.mode}
          data-testid="agent-computer-mode"
          value={mode}
          onChange={(event) => setMode(event.target.value as ComputerMode)}
        >
          <option value="team">{t.computerModeTeam}</option>
          <option value="private">{t.computerModePrivate}</option>
        </select>
        <p className="field-hint">{mode === 'team' ? t.computerModeTeamHint : t.computerModePrivateHint}</p>
        <FormError error={save.error} />
        <SaveActions
          saved={save.saved && !dirty}
          saving={save.pending === 'save'}
          disabled={save.pending !== null || !dirty || !name.trim()}
          testId="agent-profile-save"
        />
      </form>
    </SettingsSection>
  );
}

/** Whether the agent's settings name a model of its own (else the workspace's is used). */
function hasOverride(settings: AgentModelSettings): boolean {
  return settings.provider !== undefined || settings.baseUrl !== undefined || settings.model !== undefined;
}

function ModelOverrideSection({ agent, manager }: { agent: AgentView; manager: boolean }) {
  const t = useT();
  const { putAgent } = useShell();
  const current = agent.modelSettings;
  const [own, setOwn] = useState(hasOverride(current));
  const [provider, setProvider] = useState<ModelProvider>(current.provider ?? 'openai-chat');
  const [baseUrl, setBaseUrl] = useState(current.baseUrl ?? '');
  const [model, setModel] = useState(current.model ?? '');
  const [key, setKey] = useState<KeyChange>(KEEP_KEY);
  const ids = { own: useId(), provider: useId(), baseUrl: useId() };

  const next: AgentModelSettings = own
    ? {
        provider,
        ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(current.temperature !== undefined ? { temperature: current.temperature } : {}),
      }
    : {};
  const settingsChanged =
    own !== hasOverride(current) ||
    (own &&
      (provider !== (current.provider ?? 'openai-chat') ||
        (next.baseUrl ?? '') !== (current.baseUrl ?? '') ||
        (next.model ?? '') !== (current.model ?? '')));
  const keyChanged = keyRequest(key) !== undefined;
  const dirty = settingsChanged || keyChanged;
  const missingUrl = own && !baseUrlOptional(provider) && !baseUrl.trim();

  const save = useSettingsSave({
    canSave: dirty && !missingUrl,
    save: () =>
      agentsApi.update(agent.id, {
        ...(settingsChanged ? { modelSettings: next } : {}),
        // Back to the workspace's model: the agent's own key has no endpoint left to serve.
        ...(!own && agent.hasModelApiKey ? { modelApiKey: null } : keyChanged ? { modelApiKey: keyRequest(key) } : {}),
      }),
    onSaved: (updated) => {
      putAgent(updated);
      const settings = updated.modelSettings;
      setOwn(hasOverride(settings));
      setProvider(settings.provider ?? 'openai-chat');
      setBaseUrl(settings.baseUrl ?? '');
      setModel(settings.model ?? '');
      setKey(KEEP_KEY);
    },
  });

  if (!manager) {
    return (
      <SettingsSection title={t.agentModel} testId="agent-model">
        <AgentReadiness agent={agent} />
        <AskAnOwner text={t.agentModelMemberNote} />
        <dl className="settings-facts" data-testid="agent-model-readonly">
          {/* A member's view has no base URL (the API withholds it): the readiness says whose model it is. */}
          {agent.modelReadiness.source === 'agent' ? (
            <>
              <dt>{t.modelProvider}</dt>
              <dd>{current.provider ? t[PROVIDER_LABEL[current.provider]] : '—'}</dd>
              <dt>{t.modelName}</dt>
              <dd>{current.model ?? '—'}</dd>
            </>
          ) : (
            <>
              <dt>{t.agentModel}</dt>
              <dd>{t.agentModelUsesWorkspace}</dd>
            </>
          )}
        </dl>
      </SettingsSection>
    );
  }

  return (
    <SettingsSection title={t.agentModel} description={t.agentModelText} testId="agent-model">
      <AgentReadiness agent={agent} />
      <form className="settings-form" onSubmit={(event) => void save.submit(event)}>
        <fieldset className="choice-group">
          <legend className="visually-hidden">{t.agentModel}</legend>
          <label className="choice">
            <input
              type="radio"
              name={ids.own}
              data-testid="agent-model-workspace"
              checked={!own}
              onChange={() => setOwn(false)}
            />
            <span>{t.agentModelUsesWorkspace}</span>
          </label>
          <label className="choice">
            <input type="radio" name={ids.own} data-testid="agent-model-own" checked={own} onChange={() => setOwn(true)} />
            <span>{t.agentModelOwn}</span>
          </label>
        </fieldset>
        {own && (
          <>
            <label htmlFor={ids.provider} className="field-label">
              {t.modelProvider}
            </label>
            <select
              id={ids.provider}
              data-testid="agent-model-provider"
              value={provider}
              onChange={(event) => setProvider(event.target.value as ModelProvider)}
            >
              {OVERRIDE_PROVIDERS.map((p) => (
                <option key={p} value={p}>
                  {t[PROVIDER_LABEL[p]]}
                </option>
              ))}
            </select>
            <label htmlFor={ids.baseUrl} className="field-label">
              {t.modelBaseUrl}
            </label>
            <input
              id={ids.baseUrl}
              data-testid="agent-model-base-url"
              type="url"
              inputMode="url"
              value={baseUrl}
              maxLength={2_000}
              required={!baseUrlOptional(provider)}
              spellCheck={false}
              placeholder={baseUrlOptional(provider) ? t.modelBaseUrlDefault : t.modelBaseUrlPlaceholder}
              onChange={(event) => setBaseUrl(event.target.value)}
            />
            <ModelNameField
              workspaceId={agent.workspaceId}
              provider={provider}
              baseUrl={baseUrl}
              value={model}
              onChange={setModel}
              testId="agent-model-name"
            />
            <ApiKeyField
              stored={agent.hasModelApiKey}
              lastFour={agent.modelApiKeyLast4}
              change={key}
              onChange={setKey}
              testIdPrefix="agent-model"
            />
          </>
        )}
        <FormError error={save.error} testId="agent-model-error" />
        <SaveActions
          saved={save.saved && !dirty}
          saving={save.pending === 'save'}
          disabled={save.pending !== null || !dirty || missingUrl}
          testId="agent-model-save"
        />
      </form>
    </SettingsSection>
  );
}

/** What the agent uses now (its own model, its workspace's or the host's), or why it has none. */
function AgentReadiness({ agent }: { agent: AgentView }) {
  const t = useT();
  const readiness = agent.modelReadiness;
  if (!readiness.usable)
    return (
      <p className="readiness readiness-bad" data-testid="agent-model-readiness" data-usable="false">
        {runErrorText(readiness.code ?? 'model_not_configured', t)}
      </p>
    );
  const from =
    readiness.source === 'agent' ? t.modelSourceAgent : readiness.source === 'env' ? t.modelSourceHost : t.modelSourceWorkspace;
  return (
    <p className="readiness readiness-good" data-testid="agent-model-readiness" data-usable="true">
      {fill(t.modelReady, {
        provider: readiness.provider ? t[PROVIDER_SHORT[readiness.provider]] : '—',
        model: readiness.model ?? '—',
        from,
      })}
    </p>
  );
}
