'use client';

import { useEffect, useId, useState } from 'react';
import type {
  LocalModelServerListView,
  LocalModelServerView,
  ModelProvider,
  ModelReadiness,
  ModelTestView,
  WorkspaceModelSettings,
  WorkspaceView,
} from '@lazyboy/contracts';
import { fill } from '../../locales';
import { isAbort } from '../../lib/api';
import { workspaceModel, workspaces } from '../../lib/endpoints';
import { useT } from '../../lib/i18n';
import { PROVIDER_LABEL, PROVIDER_SHORT, baseUrlOptional, isHttpProvider } from '../../lib/model-providers';
import { runErrorText } from '../../lib/run-error-text';
import { useShell } from '../../lib/shell-context';
import { ApiKeyField, KEEP_KEY, keyRequest, type KeyChange } from './api-key-field';
import { FormError } from '../form-error';
import { ProviderText } from '../provider-text';
import { ModelNameField } from './model-name-field';
import { SaveActions, SettingsSection } from './settings-frame';
import { useSettingsSave } from './use-settings-save';

const LOCAL_SERVER_NAME: Record<LocalModelServerView['kind'], string> = {
  ollama: 'Ollama',
  'llama.cpp': 'llama.cpp',
  'lm-studio': 'LM Studio',
  vllm: 'vLLM',
};

function hasSettings(settings: WorkspaceModelSettings): boolean {
  return (
    settings.provider !== undefined ||
    settings.baseUrl !== undefined ||
    settings.model !== undefined ||
    settings.modelPath !== undefined
  );
}

/** Whether two settings say the same (a stored temperature is kept as it is, it is not edited here). */
function sameSettings(a: WorkspaceModelSettings, b: WorkspaceModelSettings): boolean {
  const keys = ['provider', 'baseUrl', 'model', 'modelPath', 'temperature'] as const;
  return keys.every((key) => a[key] === b[key]);
}

interface WorkspaceModelSectionProps {
  view: WorkspaceView;
  onSaved(view: WorkspaceView): void;
}

/**
 * The model every agent of the workspace uses unless it has its own: the provider, its base URL, the model
 * (picked from the endpoint's list when it answers), a write-only key, a test request that shows the
 * provider's own answer, and the local model servers found, one click each. Owners and admins only.
 */
export function WorkspaceModelSection({ view, onSaved }: WorkspaceModelSectionProps) {
  const t = useT();
  const { reloadAgents } = useShell();
  const model = view.model;
  const hostOffered = model.hostModel === 'available';
  const [useHost, setUseHost] = useState(hostOffered && !hasSettings(model.settings));
  // '' keeps settings saved without a provider as they are (the API reads them as openai-chat): presetting one
  // would make the form dirty at once and keep Test from using the saved key.
  const [provider, setProvider] = useState<ModelProvider | ''>(model.settings.provider ?? '');
  const [baseUrl, setBaseUrl] = useState(model.settings.baseUrl ?? '');
  const [modelName, setModelName] = useState(model.settings.model ?? '');
  const [modelPath, setModelPath] = useState(model.settings.modelPath ?? '');
  const [key, setKey] = useState<KeyChange>(KEEP_KEY);
  const [test, setTest] = useState<ModelTestView | null>(null);
  const ids = { source: useId(), provider: useId(), baseUrl: useId(), modelPath: useId() };

  const effectiveProvider: ModelProvider = provider || 'openai-chat';
  const http = isHttpProvider(effectiveProvider);
  const settings: WorkspaceModelSettings = useHost
    ? {}
    : {
        ...(provider ? { provider } : {}),
        ...(http && baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(http && modelName.trim() ? { model: modelName.trim() } : {}),
        ...(!http && modelPath.trim() ? { modelPath: modelPath.trim() } : {}),
        ...(model.settings.temperature !== undefined ? { temperature: model.settings.temperature } : {}),
      };
  // Back to the host's model: a key for the workspace's own endpoint has nothing left to serve.
  const keyChange: KeyChange = useHost && model.hasApiKey ? { kind: 'remove' } : useHost || !http ? KEEP_KEY : key;
  const settingsChanged = !sameSettings(settings, model.settings);
  const dirty = settingsChanged || keyRequest(keyChange) !== undefined;
  const missingUrl = !useHost && http && !baseUrlOptional(effectiveProvider) && !baseUrl.trim();
  // The API drops a stored key with the endpoint it was saved for, unless the same change brings a new one.
  const endpointMoved = (nextProvider: ModelProvider | '', nextBaseUrl: string) =>
    nextProvider !== (model.settings.provider ?? '') || nextBaseUrl.trim() !== (model.settings.baseUrl ?? '');
  const keyDropped =
    !useHost && http && model.hasApiKey && endpointMoved(provider, baseUrl) && keyRequest(keyChange) === undefined;

  /** A new endpoint while a key is stored: the key field opens, for the key the new endpoint needs. */
  function openKeyIfMoved(nextProvider: ModelProvider | '', nextBaseUrl: string) {
    if (model.hasApiKey && key.kind === 'keep' && endpointMoved(nextProvider, nextBaseUrl)) {
      setKey({ kind: 'set', value: '' });
    }
  }

  function reset(next: WorkspaceView) {
    const s = next.model.settings;
    setUseHost(next.model.hostModel === 'available' && !hasSettings(s));
    setProvider(s.provider ?? '');
    setBaseUrl(s.baseUrl ?? '');
    setModelName(s.model ?? '');
    setModelPath(s.modelPath ?? '');
    setKey(KEEP_KEY);
  }

  const save = useSettingsSave({
    canSave: dirty && !missingUrl,
    save: () => {
      const apiKey = keyRequest(keyChange);
      return workspaces.update(view.id, {
        ...(settingsChanged ? { modelSettings: settings } : {}),
        ...(apiKey !== undefined ? { modelApiKey: apiKey } : {}),
      });
    },
    onSaved: (next) => {
      onSaved(next);
      reset(next);
      // Whether each agent has a usable model follows from these settings.
      reloadAgents();
    },
  });

  function pickServer(server: LocalModelServerView) {
    setUseHost(false);
    setProvider(server.provider);
    setBaseUrl(server.baseUrl);
    openKeyIfMoved(server.provider, server.baseUrl);
    if (server.models[0] && !server.models.includes(modelName)) setModelName(server.models[0]);
    setTest(null);
    save.markDirty();
  }

  function runTest() {
    setTest(null);
    const apiKey = keyChange.kind === 'set' ? keyRequest(keyChange) : undefined;
    return save.run('test', async () =>
      setTest(await workspaceModel.test(view.id, { modelSettings: settings, ...(apiKey ? { modelApiKey: apiKey } : {}) })),
    );
  }

  const providers: ModelProvider[] = ['openai-chat', 'xai', 'openai-responses'];
  if (model.localModelServersAllowed || provider === 'local-gguf') providers.push('local-gguf');

  return (
    <SettingsSection title={t.workspaceModelTitle} description={t.workspaceModelText} testId="workspace-model">
      <ReadinessLine readiness={model.readiness} />
      <LocalServers workspaceId={view.id} allowed={model.localModelServersAllowed} onPick={pickServer} />
      <form className="settings-form" onSubmit={(event) => void save.submit(event)}>
        {(hostOffered || model.hostModel === 'not_for_this_workspace') && (
          <fieldset className="choice-group">
            <legend className="visually-hidden">{t.workspaceModelTitle}</legend>
            <label className="choice">
              <input
                type="radio"
                name={ids.source}
                data-testid="workspace-model-host"
                checked={useHost}
                disabled={!hostOffered}
                onChange={() => setUseHost(true)}
              />
              <span>
                {t.workspaceModelUseHost}
                {!hostOffered && <span className="field-hint"> {t.workspaceModelHostNotHere}</span>}
              </span>
            </label>
            <label className="choice">
              <input
                type="radio"
                name={ids.source}
                data-testid="workspace-model-own"
                checked={!useHost}
                onChange={() => setUseHost(false)}
              />
              <span>{t.workspaceModelUseOwn}</span>
            </label>
          </fieldset>
        )}
        {!useHost && (
          <>
            <label htmlFor={ids.provider} className="field-label">
              {t.modelProvider}
            </label>
            <select
              id={ids.provider}
              data-testid="workspace-model-provider"
              value={provider}
              onChange={(event) => {
                const next = event.target.value as ModelProvider | '';
                setProvider(next);
                openKeyIfMoved(next, baseUrl);
                setTest(null);
              }}
            >
              {provider === '' && <option value="">{t.modelProviderAsSaved}</option>}
              {providers.map((p) => (
                <option key={p} value={p}>
                  {t[PROVIDER_LABEL[p]]}
                </option>
              ))}
            </select>
            {http ? (
              <>
                <label htmlFor={ids.baseUrl} className="field-label">
                  {t.modelBaseUrl}
                </label>
                <input
                  id={ids.baseUrl}
                  data-testid="workspace-model-base-url"
                  type="url"
                  inputMode="url"
                  value={baseUrl}
                  maxLength={2_000}
                  required={!baseUrlOptional(effectiveProvider)}
                  spellCheck={false}
                  placeholder={baseUrlOptional(effectiveProvider) ? t.modelBaseUrlDefault : t.modelBaseUrlPlaceholder}
                  onChange={(event) => {
                    setBaseUrl(event.target.value);
                    openKeyIfMoved(provider, event.target.value);
                    setTest(null);
                  }}
                />
                <ModelNameField
                  workspaceId={view.id}
                  provider={effectiveProvider}
                  baseUrl={baseUrl}
                  value={modelName}
                  onChange={(value) => {
                    setModelName(value);
                    setTest(null);
                  }}
                  testId="workspace-model-name"
                />
                <ApiKeyField
                  stored={model.hasApiKey}
                  lastFour={model.apiKeyLast4}
                  change={key}
                  onChange={(change) => {
                    setKey(change);
                    setTest(null);
                  }}
                  testIdPrefix="workspace-model"
                />
                {keyDropped && (
                  <p className="field-hint" role="status" data-testid="workspace-model-key-dropped">
                    {t.modelKeyWillBeRemoved}
                  </p>
                )}
              </>
            ) : (
              <>
                <label htmlFor={ids.modelPath} className="field-label">
                  {t.modelPath}
                </label>
                <input
                  id={ids.modelPath}
                  data-testid="workspace-model-path"
                  value={modelPath}
                  maxLength={1_000}
                  spellCheck={false}
                  placeholder={t.modelPathPlaceholder}
                  onChange={(event) => setModelPath(event.target.value)}
                />
                <p className="field-hint">{t.modelPathHint}</p>
              </>
            )}
          </>
        )}
        {test && <TestResult test={test} />}
        <FormError error={save.error} testId="workspace-model-error" />
        <SaveActions
          saved={save.saved && !dirty}
          saving={save.pending === 'save'}
          disabled={save.pending !== null || !dirty || missingUrl}
          testId="workspace-model-save"
        >
          <button
            type="button"
            className="button"
            data-testid="workspace-model-test"
            disabled={save.pending !== null || missingUrl}
            onClick={() => void runTest()}
          >
            {save.pending === 'test' ? t.modelTesting : t.modelTest}
          </button>
        </SaveActions>
      </form>
    </SettingsSection>
  );
}

/** What an agent without settings of its own uses now, or why it has nothing. */
function ReadinessLine({ readiness }: { readiness: ModelReadiness }) {
  const t = useT();
  if (!readiness.usable)
    return (
      <p className="readiness readiness-bad" data-testid="workspace-model-readiness" data-usable="false">
        {runErrorText(readiness.code ?? 'model_not_configured', t)}
      </p>
    );
  const from = readiness.source === 'env' ? t.modelSourceHost : t.modelSourceWorkspace;
  return (
    <p className="readiness readiness-good" data-testid="workspace-model-readiness" data-usable="true">
      {fill(t.modelReady, {
        provider: readiness.provider ? t[PROVIDER_SHORT[readiness.provider]] : '—',
        model: readiness.model ?? '—',
        from,
      })}
    </p>
  );
}

function LocalServers({
  workspaceId,
  allowed,
  onPick,
}: {
  workspaceId: string;
  allowed: boolean;
  onPick(server: LocalModelServerView): void;
}) {
  const t = useT();
  const { me } = useShell();
  const [found, setFound] = useState<LocalModelServerListView | null>(null);
  useEffect(() => {
    if (!allowed) return;
    const abort = new AbortController();
    workspaceModel
      .localServers(workspaceId, abort.signal)
      .then(setFound)
      .catch((error: unknown) => {
        // Only a convenience: without it people type the base URL.
        if (!isAbort(error)) setFound(null);
      });
    return () => abort.abort();
  }, [workspaceId, allowed]);

  if (!allowed)
    return (
      <p className="field-hint" data-testid="local-servers-not-allowed">
        {t.localServersNotAllowed} {me.user.isAdmin && <a href="/admin#settings">{t.localServersAllowLink}</a>}
      </p>
    );
  if (!found || found.servers.length === 0) return null;
  return (
    <div className="local-servers" data-testid="local-servers">
      <p className="field-label">{t.localServersFound}</p>
      <div className="local-server-list">
        {found.servers.map((server) => (
          <button
            key={server.baseUrl}
            type="button"
            className="local-server"
            data-testid="local-server"
            data-kind={server.kind}
            onClick={() => onPick(server)}
          >
            <span className="local-server-name">{LOCAL_SERVER_NAME[server.kind]}</span>
            <span className="local-server-url">{server.baseUrl}</span>
            <span className="local-server-models">
              {server.models.length > 0 ? fill(t.localServerModels, { count: server.models.length }) : t.modelListEmpty}
            </span>
          </button>
        ))}
      </div>
    </div>
  );
}

function TestResult({ test }: { test: ModelTestView }) {
  const t = useT();
  if (test.ok)
    return (
      <p className="test-result test-ok" role="status" data-testid="model-test-result" data-ok="true">
        {fill(t.modelTestOk, { model: test.model ?? '—' })}
        {test.reply?.trim() && (
          <>
            {' '}
            {t.modelTestReply} <q>{test.reply.trim()}</q>
          </>
        )}
      </p>
    );
  return (
    <p
      className="test-result test-failed"
      role="alert"
      data-testid="model-test-result"
      data-ok="false"
      data-code={test.error?.code}
    >
      {runErrorText(test.error?.code ?? 'model_error', t)}
      {test.error?.providerMessage && <ProviderText text={test.error.providerMessage} status={test.error.status} />}
    </p>
  );
}
