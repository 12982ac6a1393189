'use client';

import { useId } from 'react';
import { fill } from '../../locales';
import { useT } from '../../lib/i18n';

/** What saving does to a stored key: it is never read back, only kept, replaced or removed. */
export type KeyChange = { kind: 'keep' } | { kind: 'set'; value: string } | { kind: 'remove' };

export const KEEP_KEY: KeyChange = { kind: 'keep' };

/** The request's key field for a change: undefined keeps, null removes. */
export function keyRequest(change: KeyChange): string | null | undefined {
  if (change.kind === 'set') return change.value.trim() || undefined;
  return change.kind === 'remove' ? null : undefined;
}

interface ApiKeyFieldProps {
  /** A key is stored now. */
  stored: boolean;
  /** Its last four characters, when the API tells them. */
  lastFour?: string | null;
  change: KeyChange;
  onChange(change: KeyChange): void;
  disabled?: boolean;
  testIdPrefix: string;
}

/**
 * A write-only secret: the stored key shows as •••• and its last four characters, with Replace and
 * Remove; a new key is typed into a password field that no browser should offer to remember.
 */
export function ApiKeyField({ stored, lastFour, change, onChange, disabled, testIdPrefix }: ApiKeyFieldProps) {
  const t = useT();
  const inputId = useId();
  const masked = lastFour ? `••••${lastFour}` : '••••';
  const editing = change.kind === 'set' || !stored;
  return (
    <div className="api-key-field" data-testid={`${testIdPrefix}-key`}>
      {editing ? (
        <label htmlFor={inputId} className="field-label">
          {t.modelApiKey}
        </label>
      ) : (
        <p className="field-label">{t.modelApiKey}</p>
      )}
      {stored && change.kind === 'keep' && (
        <div className="api-key-stored">
          <code data-testid={`${testIdPrefix}-key-masked`} aria-label={t.modelApiKeyStored}>
            {masked}
          </code>
          <button
            type="button"
            className="button button-small"
            data-testid={`${testIdPrefix}-key-replace`}
            disabled={disabled}
            onClick={() => onChange({ kind: 'set', value: '' })}
          >
            {t.modelApiKeyReplace}
          </button>
          <button
            type="button"
            className="button button-small button-danger-quiet"
            data-testid={`${testIdPrefix}-key-remove`}
            disabled={disabled}
            onClick={() => onChange({ kind: 'remove' })}
          >
            {t.modelApiKeyRemove}
          </button>
        </div>
      )}
      {stored && change.kind === 'remove' && (
        <p className="api-key-stored" data-testid={`${testIdPrefix}-key-removing`}>
          <span>{fill(t.modelApiKeyWillRemove, { key: masked })}</span>
          <button type="button" className="button-link" onClick={() => onChange(KEEP_KEY)}>
            {t.undo}
          </button>
        </p>
      )}
      {editing && (
        <div className="api-key-input">
          <input
            id={inputId}
            data-testid={`${testIdPrefix}-key-input`}
            type="password"
            value={change.kind === 'set' ? change.value : ''}
            maxLength={500}
            autoComplete="off"
            spellCheck={false}
            disabled={disabled}
            placeholder={stored ? t.modelApiKeyNewPlaceholder : t.modelApiKeyPlaceholder}
            onChange={(event) => onChange(event.target.value || stored ? { kind: 'set', value: event.target.value } : KEEP_KEY)}
          />
          {stored && (
            <button type="button" className="button button-small button-quiet" onClick={() => onChange(KEEP_KEY)}>
              {t.cancel}
            </button>
          )}
        </div>
      )}
      <p className="field-hint">{t.modelApiKeyHint}</p>
    </div>
  );
}
