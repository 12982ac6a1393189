'use client';

import { useId, useState } from 'react';
import Link from 'next/link';
import type { BotModelSettings, BotView, ComputerMode, ModelProvider, UpdateBotRequest } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { bots as botsApi } from '../../lib/endpoints';
import { useT } from '../../lib/i18n';
import { PROVIDER_LABEL, PROVIDER_SHORT, baseUrlOptional } from '../../lib/model-providers';
import { randomToken } from '../../lib/random-token';
import { runErrorText } from '../../lib/run-error-text';
import { canManage } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { useBot } from '../../lib/use-bot';
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

/** /agents/[botId]/settings: the agent's name, face, instructions, computer and its own model. */
export function AgentSettings({ botId }: { botId: string }) {
  const t = useT();
  const { workspace } = useShell();
  const { bot, missing } = useBot(botId);
  if (!bot) return <AgentPending missing={missing} />;
  return (
    <div className="settings-page" data-testid="agent-settings" data-bot-id={bot.id}>
      <header className="settings-header">
        <DrawerToggle />
        <Blobatar seed={bot.avatarSeed} size={40} />
        <div className="settings-header-text">
          <h1>{fill(t.agentSettingsTitle, { name: bot.name })}</h1>
          <Link href={`/agents/${bot.id}`} className="settings-back" data-testid="agent-settings-back">
            ← {t.agentSettingsBack}
          </Link>
        </div>
      </header>
      <div className="settings-body">
        <ProfileSection bot={bot} />
        <ModelOverrideSection bot={bot} manager={canManage(workspace.role)} />
      </div>
    </div>
  );
}

function ProfileSection({ bot }: { bot: BotView }) {
  const t = useT();
  const { putBot } = useShell();
  const [name, setName] = useState(bot.name);
  const [seed, setSeed] = useState(bot.avatarSeed);
  const [instructions, setInstructions] = useState(bot.instructions);
  const [mode, setMode] = useState<ComputerMode>(bot.computerMode);
  const ids = { name: useId(), instructions: useId(), mode: useId() };

  const changes: UpdateBotRequest = {
    ...(name.trim() !== bot.name ? { name: name.trim() } : {}),
    ...(seed !== bot.avatarSeed ? { avatarSeed: seed } : {}),
    ...(instructions !== bot.instructions ? { instructions } : {}),
    ...(mode !== bot.computerMode ? { computerMode: mode } : {}),
  };
  const dirty = Object.keys(changes).length > 0;

  const save = useSettingsSave({
    canSave: dirty && name.trim() !== '',
    save: () => botsApi.update(bot.id, changes),
    onSaved: (updated) => {
      putBot(updated);
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
          {seed !== bot.avatarSeed && (
            <button type="button" className="button-link" onClick={() => setSeed(bot.avatarSeed)}>
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
function hasOverride(settings: BotModelSettings): boolean {
  return settings.provider !== undefined || settings.baseUrl !== undefined || settings.model !== undefined;
}

function ModelOverrideSection({ bot, manager }: { bot: BotView; manager: boolean }) {
  const t = useT();
  const { putBot } = useShell();
  const current = bot.modelSettings;
  const [own, setOwn] = useState(hasOverride(current));
  const [provider, setProvider] = useState<ModelProvider>(current.provider ?? 'openai-chat');
  const [baseUrl, setBaseUrl] = useState(current.baseUrl ?? '');
  const [model, setModel] = useState(current.model ?? '');
  const [key, setKey] = useState<KeyChange>(KEEP_KEY);
  const ids = { own: useId(), provider: useId(), baseUrl: useId() };

  const next: BotModelSettings = own
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
      botsApi.update(bot.id, {
        ...(settingsChanged ? { modelSettings: next } : {}),
        // Back to the workspace's model: the agent's own key has no endpoint left to serve.
        ...(!own && bot.hasModelApiKey ? { modelApiKey: null } : keyChanged ? { modelApiKey: keyRequest(key) } : {}),
      }),
    onSaved: (updated) => {
      putBot(updated);
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
        <AgentReadiness bot={bot} />
        <AskAnOwner text={t.agentModelMemberNote} />
        <dl className="settings-facts" data-testid="agent-model-readonly">
          {/* A member's view has no base URL (the API withholds it): the readiness says whose model it is. */}
          {bot.modelReadiness.source === 'bot' ? (
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
      <AgentReadiness bot={bot} />
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
              workspaceId={bot.workspaceId}
              provider={provider}
              baseUrl={baseUrl}
              value={model}
              onChange={setModel}
              testId="agent-model-name"
            />
            <ApiKeyField
              stored={bot.hasModelApiKey}
              lastFour={bot.modelApiKeyLast4}
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
function AgentReadiness({ bot }: { bot: BotView }) {
  const t = useT();
  const readiness = bot.modelReadiness;
  if (!readiness.usable)
    return (
      <p className="readiness readiness-bad" data-testid="agent-model-readiness" data-usable="false">
        {runErrorText(readiness.code ?? 'model_not_configured', t)}
      </p>
    );
  const from =
    readiness.source === 'bot' ? t.modelSourceAgent : readiness.source === 'env' ? t.modelSourceHost : t.modelSourceWorkspace;
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
