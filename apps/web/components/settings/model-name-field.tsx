'use client';

import { useEffect, useId, useState } from 'react';
import type { ModelListView, ModelProvider } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { isAbort } from '../../lib/api';
import { workspaceModel } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { runErrorText } from '../../lib/run-error-text';
import { ProviderText } from '../provider-text';

/** Typing a base URL is a burst of keystrokes: the endpoint is asked once they pause. */
const LIST_DELAY_MS = 600;

interface ModelNameFieldProps {
  workspaceId: string;
  provider: ModelProvider;
  /** Empty: the provider's own service. */
  baseUrl: string;
  value: string;
  onChange(value: string): void;
  testId: string;
}

type ListState =
  { kind: 'idle' } | { kind: 'loading' } | { kind: 'listed'; view: ModelListView } | { kind: 'failed'; text: string };

/**
 * The model name: typed, or picked from the models the endpoint lists (its /v1/models, asked through the
 * API, which sends the saved key only to the endpoint it was saved for). A list that cannot be read leaves
 * the field as it is and says why.
 */
export function ModelNameField({ workspaceId, provider, baseUrl, value, onChange, testId }: ModelNameFieldProps) {
  const t = useT();
  const inputId = useId();
  const listId = useId();
  const [list, setList] = useState<ListState>({ kind: 'idle' });
  const url = baseUrl.trim();

  useEffect(() => {
    if (url && !URL.canParse(url)) {
      setList({ kind: 'idle' });
      return;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => {
      setList({ kind: 'loading' });
      workspaceModel
        .models(workspaceId, { provider, ...(url ? { baseUrl: url } : {}) }, abort.signal)
        .then((view) => setList({ kind: 'listed', view }))
        .catch((error: unknown) => {
          if (!isAbort(error)) setList({ kind: 'failed', text: errorText(error, t) });
        });
    }, LIST_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [workspaceId, provider, url, t]);

  const models = list.kind === 'listed' ? list.view.models : [];
  return (
    <>
      <label htmlFor={inputId} className="field-label">
        {t.modelName}
      </label>
      <input
        id={inputId}
        data-testid={testId}
        value={value}
        list={models.length > 0 ? listId : undefined}
        maxLength={200}
        spellCheck={false}
        autoComplete="off"
        placeholder={models[0] ?? t.modelNamePlaceholder}
        onChange={(event) => onChange(event.target.value)}
      />
      {models.length > 0 && (
        <datalist id={listId}>
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      )}
      <ModelListNote list={list} testId={`${testId}-list`} />
      {models.length > 0 && (
        <div className="model-choices" data-testid={`${testId}-choices`}>
          {models.slice(0, 12).map((m) => (
            <button
              key={m}
              type="button"
              className={m === value ? 'button button-small button-toggle is-on' : 'button button-small button-toggle'}
              aria-pressed={m === value}
              data-testid="model-choice"
              onClick={() => onChange(m)}
            >
              {m}
            </button>
          ))}
        </div>
      )}
    </>
  );
}

function ModelListNote({ list, testId }: { list: ListState; testId: string }) {
  const t = useT();
  if (list.kind === 'idle') return null;
  if (list.kind === 'loading')
    return (
      <p className="field-hint" data-testid={testId} data-state="loading">
        {t.modelListLoading}
      </p>
    );
  if (list.kind === 'failed')
    return (
      <p className="field-hint" data-testid={testId} data-state="failed">
        {fill(t.modelListFailed, { reason: list.text })}
      </p>
    );
  const { view } = list;
  if (view.ok)
    return (
      <p className="field-hint" data-testid={testId} data-state="listed">
        {view.models.length === 0 ? t.modelListEmpty : fill(t.modelListFound, { count: view.models.length })}
      </p>
    );
  return (
    <p className="field-hint" data-testid={testId} data-state="failed">
      {fill(t.modelListFailed, { reason: runErrorText(view.error?.code ?? 'model_error', t) })}
      {view.error?.providerMessage && <ProviderText text={view.error.providerMessage} status={view.error.status} />}
    </p>
  );
}
