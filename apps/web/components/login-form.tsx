'use client';

import { useEffect, useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import type { SignupPolicy } from '@lazyboy/contracts';
import { ApiError } from '../lib/api';
import { auth } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { closeRealtime } from '../lib/realtime';
import { CredentialFields, FormSwitch, useCredentials } from './credential-fields';
import { FormError } from './form-error';

type Mode = 'login' | 'signup';

/**
 * Sign in, or (when the server's sign-up policy is `open`) create an account, which comes with a personal
 * workspace and signs in too. Under `invite` people sign up through their invitation's link instead.
 */
export function LoginForm() {
  const t = useT();
  const router = useRouter();
  const [mode, setMode] = useState<Mode>('login');
  const [credentials, changeCredentials] = useCredentials();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Unknown until the API says: no sign-up offered meanwhile (a refused one would say why anyway).
  const [policy, setPolicy] = useState<SignupPolicy | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    auth
      .signupPolicy(abort.signal)
      .then((view) => setPolicy(view.signup))
      .catch(() => undefined);
    return () => abort.abort();
  }, []);

  // Already signed in (a bookmark to /login, the back button): straight to the app.
  useEffect(() => {
    const abort = new AbortController();
    auth
      .me(abort.signal)
      .then(() => router.replace('/'))
      .catch(() => undefined);
    return () => abort.abort();
  }, [router]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const { email, password, displayName } = credentials;
      if (mode === 'login') await auth.login({ email: email.trim(), password });
      else await auth.signup({ email: email.trim(), password, displayName: displayName.trim() });
      // The realtime handshake carries the cookie: a socket from before the login would be anonymous.
      closeRealtime();
      router.replace('/');
    } catch (failure) {
      setError(mode === 'login' && failure instanceof ApiError && failure.status === 401 ? t.loginFailed : errorText(failure, t));
      setBusy(false);
    }
  }

  const signup = mode === 'signup';
  return (
    <main className="login-page">
      <form className="login-card" data-testid="login-form" data-mode={mode} onSubmit={(event) => void submit(event)}>
        <img src="/icons/icon.svg" alt="" width={64} height={64} className="login-logo" />
        <h1>{t.appName}</h1>
        <p className="login-tagline">{t.tagline}</p>
        <h2 className="login-heading">{signup ? t.signupTitle : t.loginTitle}</h2>
        <CredentialFields kind={mode} values={credentials} onChange={changeCredentials} autoFocus="email" />
        <FormError error={error} testId="login-error" />
        <button type="submit" className="button button-primary button-wide" data-testid="login-submit" disabled={busy}>
          {busy ? t.pleaseWait : signup ? t.signupSubmit : t.loginSubmit}
        </button>
        {policy === 'invite' && !signup && (
          <p className="login-switch" data-testid="signup-needs-invitation">
            {t.signupNeedsInvitation}
          </p>
        )}
        {policy === 'closed' && !signup && (
          <p className="login-switch" data-testid="signup-closed">
            {t.errorSignupClosed}
          </p>
        )}
        {(policy === 'open' || signup) && (
          <FormSwitch
            question={signup ? t.haveAccount : t.noAccount}
            action={signup ? t.switchToLogin : t.switchToSignup}
            onSwitch={() => {
              setMode(signup ? 'login' : 'signup');
              setError(null);
            }}
          />
        )}
      </form>
    </main>
  );
}
