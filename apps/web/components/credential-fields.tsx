'use client';

import { useCallback, useId, useState } from 'react';
import { PASSWORD_MIN_LENGTH } from '@lazyboy/contracts';
import { fill } from '../locales';
import { useT } from '../lib/i18n';

export interface Credentials {
  displayName: string;
  email: string;
  password: string;
}

/** The fields' values, and a change to some of them (merged into the latest: autofill sets two at once). */
export function useCredentials(): [Credentials, (change: Partial<Credentials>) => void] {
  const [values, setValues] = useState<Credentials>({ displayName: '', email: '', password: '' });
  const change = useCallback((next: Partial<Credentials>) => setValues((current) => ({ ...current, ...next })), []);
  return [values, change];
}

interface CredentialFieldsProps {
  /** A sign-up asks for a display name and a new password of the minimum length; a sign-in for the current one. */
  kind: 'signup' | 'login';
  values: Credentials;
  onChange(change: Partial<Credentials>): void;
  /** The field that takes the focus when the form opens. */
  autoFocus: 'displayName' | 'email';
  emailHint?: string;
  disabled?: boolean;
}

/** The labelled fields of every sign-in and sign-up form (the sign-in page, an invitation's link). */
export function CredentialFields({ kind, values, onChange, autoFocus, emailHint, disabled }: CredentialFieldsProps) {
  const t = useT();
  const ids = { name: useId(), email: useId(), password: useId() };
  const signup = kind === 'signup';
  return (
    <>
      {signup && (
        <>
          <label htmlFor={ids.name} className="field-label">
            {t.displayName}
          </label>
          <input
            id={ids.name}
            data-testid="login-display-name"
            value={values.displayName}
            required
            maxLength={80}
            autoComplete="name"
            autoFocus={autoFocus === 'displayName'}
            disabled={disabled}
            onChange={(event) => onChange({ displayName: event.target.value })}
          />
        </>
      )}
      <label htmlFor={ids.email} className="field-label">
        {t.email}
      </label>
      <input
        id={ids.email}
        data-testid="login-email"
        type="email"
        value={values.email}
        required
        disabled={disabled}
        autoComplete="email"
        autoFocus={autoFocus === 'email'}
        onChange={(event) => onChange({ email: event.target.value })}
      />
      {emailHint && <p className="field-hint">{emailHint}</p>}
      <label htmlFor={ids.password} className="field-label">
        {t.password}
      </label>
      <input
        id={ids.password}
        data-testid="login-password"
        type="password"
        value={values.password}
        required
        disabled={disabled}
        minLength={signup ? PASSWORD_MIN_LENGTH : undefined}
        autoComplete={signup ? 'new-password' : 'current-password'}
        onChange={(event) => onChange({ password: event.target.value })}
      />
      {signup && <p className="field-hint">{fill(t.passwordHint, { min: PASSWORD_MIN_LENGTH })}</p>}
    </>
  );
}

/** Below a sign-in or sign-up form: "No account yet? Sign up", or the other way round. */
export function FormSwitch({ question, action, onSwitch }: { question: string; action: string; onSwitch(): void }) {
  return (
    <p className="login-switch">
      {question}{' '}
      <button type="button" className="button-link" data-testid="login-toggle-mode" onClick={onSwitch}>
        {action}
      </button>
    </p>
  );
}
