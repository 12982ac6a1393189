'use client';

import { useEffect, useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import type { InvitationPreviewView, MeView } from '@lazyboy/contracts';
import { fill } from '../locales';
import { ApiError, isAbort } from '../lib/api';
import { auth, invitations } from '../lib/endpoints';
import { errorText } from '../lib/error-text';
import { useT } from '../lib/i18n';
import { closeRealtime } from '../lib/realtime';
import { rememberWorkspace } from '../lib/workspace-choice';
import { CredentialFields, FormSwitch, useCredentials } from './credential-fields';
import { FormError } from './form-error';

type Loaded =
  | { kind: 'loading' }
  | { kind: 'missing' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'ready'; preview: InvitationPreviewView; me: MeView | null };

/** Into the app, in the workspace just joined, with a full load: the socket and the shell start signed in. */
function enter(workspaceId: string): void {
  rememberWorkspace(workspaceId);
  closeRealtime();
  window.location.assign('/');
}

/** /invite/<token>: who invites to which workspace; sign up through it, or sign in (or be signed in) and accept. */
export function InvitationPage({ token }: { token: string }) {
  const t = useT();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    const me = auth.me(abort.signal).catch(() => null);
    invitations
      .preview(token, abort.signal)
      .then(async (preview) => setLoaded({ kind: 'ready', preview, me: await me }))
      .catch((error: unknown) => {
        if (isAbort(error)) return;
        setLoaded(error instanceof ApiError && error.code === 'NOT_FOUND' ? { kind: 'missing' } : { kind: 'failed', error });
      });
    return () => abort.abort();
  }, [token, attempt]);

  return (
    <main className="login-page">
      <div className="login-card" data-testid="invitation-page" data-state={loaded.kind}>
        <img src="/icons/icon.svg" alt="" width={64} height={64} className="login-logo" />
        <h1>{t.appName}</h1>
        {loaded.kind === 'loading' && <p className="login-tagline">{t.loading}</p>}
        {loaded.kind === 'failed' && (
          <>
            <p className="form-error" role="alert">
              {errorText(loaded.error, t)}
            </p>
            <button type="button" className="button button-wide" onClick={() => setAttempt((n) => n + 1)}>
              {t.retry}
            </button>
          </>
        )}
        {loaded.kind === 'missing' && <InvitationEnded text={t.invitationInvalid} />}
        {loaded.kind === 'ready' && !loaded.preview.valid && (
          <InvitationEnded
            text={
              loaded.preview.status === 'accepted'
                ? t.errorInvitationUsed
                : loaded.preview.status === 'revoked'
                  ? t.errorInvitationRevoked
                  : t.errorInvitationExpired
            }
          />
        )}
        {loaded.kind === 'ready' && loaded.preview.valid && (
          <InvitationValid token={token} preview={loaded.preview} me={loaded.me} />
        )}
      </div>
    </main>
  );
}

function InvitationEnded({ text }: { text: string }) {
  const t = useT();
  return (
    <>
      <p className="invitation-ended" role="alert" data-testid="invitation-refused">
        {text}
      </p>
      <a href="/login" className="button button-wide">
        {t.invitationToLogin}
      </a>
    </>
  );
}

/** Signs out and stays on the link: the invitation is for another account, which signs up or in here. */
async function signOutHere(): Promise<void> {
  try {
    await auth.logout();
  } catch {
    // Signed out or not, the page shows what it can.
  }
  closeRealtime();
  window.location.reload();
}

function InvitationValid({ token, preview, me }: { token: string; preview: InvitationPreviewView; me: MeView | null }) {
  const t = useT();
  const [mode, setMode] = useState<'signup' | 'login'>(preview.signupAllowed ? 'signup' : 'login');
  const role = t[`role_${preview.role}`];
  return (
    <>
      <p className="login-tagline invitation-intro" data-testid="invitation-intro">
        {preview.inviterDisplayName
          ? fill(t.invitationFrom, { inviter: preview.inviterDisplayName, workspace: preview.workspaceName, role })
          : fill(t.invitationTo, { workspace: preview.workspaceName, role })}
      </p>
      {me ? (
        <AcceptAsSignedIn token={token} me={me} />
      ) : mode === 'signup' ? (
        <SignUpThrough token={token} onLogin={() => setMode('login')} />
      ) : (
        <LogInAndAccept token={token} onSignUp={preview.signupAllowed ? () => setMode('signup') : undefined} />
      )}
    </>
  );
}

function AcceptAsSignedIn({ token, me }: { token: string; me: MeView }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function accept() {
    setBusy(true);
    setError(null);
    try {
      enter((await invitations.accept(token)).id);
    } catch (failure) {
      setError(errorText(failure, t));
      setBusy(false);
    }
  }
  return (
    <>
      <p className="field-hint">{fill(t.invitationSignedInAs, { email: me.user.email })}</p>
      <FormError error={error} testId="invitation-error" />
      <button
        type="button"
        className="button button-primary button-wide"
        data-testid="invitation-accept"
        disabled={busy}
        onClick={() => void accept()}
      >
        {busy ? t.pleaseWait : t.invitationAccept}
      </button>
      <p className="login-switch">
        <button type="button" className="button-link" data-testid="invitation-sign-out" onClick={() => void signOutHere()}>
          {t.invitationOtherAccount}
        </button>
      </p>
    </>
  );
}

function SignUpThrough({ token, onLogin }: { token: string; onLogin(): void }) {
  const t = useT();
  const [credentials, changeCredentials] = useCredentials();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const { email, password, displayName } = credentials;
      const me = await auth.signup({ email: email.trim(), password, displayName: displayName.trim(), invitationToken: token });
      enter(me.workspaces[0]?.id ?? '');
    } catch (failure) {
      setError(errorText(failure, t));
      setBusy(false);
    }
  }

  return (
    <form data-testid="invitation-signup" onSubmit={(event) => void submit(event)}>
      <h2 className="login-heading">{t.invitationSignupTitle}</h2>
      <CredentialFields
        kind="signup"
        values={credentials}
        onChange={changeCredentials}
        autoFocus="displayName"
        emailHint={t.invitationEmailHint}
      />
      <FormError error={error} testId="login-error" />
      <button type="submit" className="button button-primary button-wide" data-testid="login-submit" disabled={busy}>
        {busy ? t.pleaseWait : t.invitationSignupSubmit}
      </button>
      <FormSwitch question={t.haveAccount} action={t.invitationLoginInstead} onSwitch={onLogin} />
    </form>
  );
}

function LogInAndAccept({ token, onSignUp }: { token: string; onSignUp?: () => void }) {
  const t = useT();
  const router = useRouter();
  const [credentials, changeCredentials] = useCredentials();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [signedIn, setSignedIn] = useState(false);
  // Signed in with an account the invitation is not for: accepting again cannot help, signing out here can.
  const [mismatch, setMismatch] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      if (!signedIn) {
        await auth.login({ email: credentials.email.trim(), password: credentials.password });
        setSignedIn(true);
      }
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? t.loginFailed : errorText(failure, t));
      setBusy(false);
      return;
    }
    try {
      enter((await invitations.accept(token)).id);
    } catch (failure) {
      // Signed in, but this account may not take the invitation (another email): the app is still theirs.
      setMismatch(failure instanceof ApiError && failure.reason === 'invitation_email_mismatch');
      setError(errorText(failure, t));
      setBusy(false);
    }
  }

  return (
    <form data-testid="invitation-login" onSubmit={(event) => void submit(event)}>
      <h2 className="login-heading">{t.invitationLoginTitle}</h2>
      {!onSignUp && <p className="field-hint">{t.invitationSignupClosed}</p>}
      <CredentialFields kind="login" values={credentials} onChange={changeCredentials} autoFocus="email" disabled={signedIn} />
      <FormError error={error} testId="login-error" />
      {!mismatch && (
        <button type="submit" className="button button-primary button-wide" data-testid="login-submit" disabled={busy}>
          {busy ? t.pleaseWait : signedIn ? t.invitationAccept : t.invitationLoginSubmit}
        </button>
      )}
      {mismatch && (
        <button
          type="button"
          className="button button-primary button-wide"
          data-testid="invitation-sign-out"
          onClick={() => void signOutHere()}
        >
          {t.invitationOtherAccount}
        </button>
      )}
      {signedIn ? (
        <p className="login-switch">
          <button type="button" className="button-link" onClick={() => router.replace('/')}>
            {t.invitationSkip}
          </button>
        </p>
      ) : (
        onSignUp && <FormSwitch question={t.noAccount} action={t.invitationSignupInstead} onSwitch={onSignUp} />
      )}
    </form>
  );
}
