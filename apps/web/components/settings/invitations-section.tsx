'use client';

import { useId, useState, type FormEvent } from 'react';
import {
  INVITATION_DEFAULT_DAYS,
  type CreatedInvitationView,
  type InvitationView,
  type MembershipRole,
} from '@lazyboy/contracts';
import { fill } from '../../locales';
import { copyText } from '../../lib/copy-text';
import { invitations as invitationsApi } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { formatDateTime } from '../../lib/format';
import { useLocale, useT } from '../../lib/i18n';
import { assignableRoles } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { ConfirmDialog } from '../dialog';
import { ErrorBanner } from '../error-banner';
import { SettingsSection } from './settings-frame';
import { useWorkspaceItems } from './use-workspace-items';

const EXPIRY_DAYS = [1, 7, 30] as const;

/** Owners and admins: invite by email with a role (a link to hand on), and the invitations sent. */
export function InvitationsSection() {
  const t = useT();
  const { workspace } = useShell();
  const { items: list, error: loadError, reload: load } = useWorkspaceItems<InvitationView>(invitationsApi.list);
  const [created, setCreated] = useState<CreatedInvitationView | null>(null);
  const [revoking, setRevoking] = useState<InvitationView | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const pending = list?.filter((i) => i.status === 'pending') ?? [];
  const ended = list?.filter((i) => i.status !== 'pending') ?? [];

  return (
    <>
      <SettingsSection title={t.inviteTitle} description={t.inviteText} testId="invite-section">
        <InviteForm
          onCreated={(invitation) => {
            setCreated(invitation);
            // A new invitation for an email replaces its pending one: the list says what is left.
            void load();
          }}
        />
        {created && <InvitationLink invitation={created} onDone={() => setCreated(null)} />}
      </SettingsSection>
      <SettingsSection title={t.invitationsTitle} testId="invitations-section">
        {loadError !== null && <ErrorBanner message={errorText(loadError, t)} onRetry={() => void load()} />}
        {list === null ? (
          loadError === null && <p className="chat-loading">{t.loading}</p>
        ) : pending.length === 0 ? (
          <p className="settings-section-text" data-testid="invitations-empty">
            {t.invitationsEmpty}
          </p>
        ) : (
          <ul className="member-list" data-testid="invitation-list">
            {pending.map((invitation) => (
              <InvitationRow
                key={invitation.id}
                invitation={invitation}
                onRevoke={() => {
                  setRevokeError(null);
                  setRevoking(invitation);
                }}
              />
            ))}
          </ul>
        )}
        {ended.length > 0 && (
          <details className="settings-more">
            <summary>{fill(t.invitationsEnded, { count: ended.length })}</summary>
            <ul className="member-list" data-testid="invitation-ended-list">
              {ended.map((invitation) => (
                <InvitationRow key={invitation.id} invitation={invitation} />
              ))}
            </ul>
          </details>
        )}
      </SettingsSection>
      {revoking && (
        <ConfirmDialog
          title={t.invitationRevoke}
          body={fill(t.invitationRevokeConfirm, { email: revoking.email })}
          confirmLabel={t.invitationRevoke}
          danger
          error={revokeError}
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            try {
              await invitationsApi.revoke(workspace.id, revoking.id);
              setRevoking(null);
              await load();
            } catch (failure) {
              setRevokeError(errorText(failure, t));
            }
          }}
        />
      )}
    </>
  );
}

function InviteForm({ onCreated }: { onCreated(invitation: CreatedInvitationView): void }) {
  const t = useT();
  const { workspace } = useShell();
  // Owners may invite owners; admins everything below.
  const roles = assignableRoles(workspace.role, 'member');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MembershipRole>('member');
  const [days, setDays] = useState<number>(INVITATION_DEFAULT_DAYS);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { email: useId(), role: useId(), days: useId() };

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy || !email.trim()) return;
    setBusy(true);
    setError(null);
    try {
      onCreated(await invitationsApi.create(workspace.id, { email: email.trim(), role, expiresInDays: days }));
      setEmail('');
    } catch (failure) {
      setError(errorText(failure, t));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="invite-form" data-testid="invite-form" onSubmit={(event) => void submit(event)}>
      <div className="invite-field invite-email">
        <label htmlFor={ids.email} className="field-label">
          {t.email}
        </label>
        <input
          id={ids.email}
          data-testid="invite-email"
          type="email"
          value={email}
          required
          maxLength={254}
          autoComplete="off"
          placeholder={t.inviteEmailPlaceholder}
          onChange={(event) => setEmail(event.target.value)}
        />
      </div>
      <div className="invite-field">
        <label htmlFor={ids.role} className="field-label">
          {t.inviteRole}
        </label>
        <select
          id={ids.role}
          data-testid="invite-role"
          value={role}
          onChange={(event) => setRole(event.target.value as MembershipRole)}
        >
          {roles.map((r) => (
            <option key={r} value={r}>
              {t[`role_${r}`]}
            </option>
          ))}
        </select>
      </div>
      <div className="invite-field">
        <label htmlFor={ids.days} className="field-label">
          {t.inviteExpiry}
        </label>
        <select id={ids.days} data-testid="invite-days" value={days} onChange={(event) => setDays(Number(event.target.value))}>
          {EXPIRY_DAYS.map((d) => (
            <option key={d} value={d}>
              {fill(d === 1 ? t.inviteExpiryDay : t.inviteExpiryDays, { days: d })}
            </option>
          ))}
        </select>
      </div>
      {error && (
        <p className="form-error invite-error" role="alert" data-testid="invite-error">
          {error}
        </p>
      )}
      <div className="form-actions invite-actions">
        <button type="submit" className="button button-primary" data-testid="invite-submit" disabled={busy || !email.trim()}>
          {busy ? t.pleaseWait : t.inviteSubmit}
        </button>
      </div>
    </form>
  );
}

/**
 * The link of a new invitation: shown this once (the API keeps only its hash), to copy and hand on; with
 * what became of its mail when the server has a mail transport.
 */
function InvitationLink({ invitation, onDone }: { invitation: CreatedInvitationView; onDone(): void }) {
  const t = useT();
  const locale = useLocale();
  const [copied, setCopied] = useState<boolean | null>(null);
  const fieldId = useId();
  const link = new URL(invitation.path, window.location.origin).toString();
  return (
    <div className="invite-link" data-testid="invite-link" data-delivery={invitation.delivery} role="status">
      {invitation.delivery !== 'not_configured' && (
        <p
          className={`invite-delivery invite-delivery-${invitation.delivery}`}
          data-testid="invite-delivery"
          data-delivery={invitation.delivery}
        >
          {invitation.delivery === 'mailed'
            ? fill(t.inviteMailed, { email: invitation.email })
            : fill(t.inviteMailFailed, { reason: t[`mailFailure_${invitation.deliveryFailure ?? 'other'}`] })}
        </p>
      )}
      <label htmlFor={fieldId} className="field-label">
        {fill(t.inviteLinkFor, { email: invitation.email, role: t[`role_${invitation.role}`] })}
      </label>
      <div className="api-key-input">
        <input
          id={fieldId}
          data-testid="invite-link-url"
          value={link}
          readOnly
          spellCheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button
          type="button"
          className="button button-small button-primary"
          data-testid="invite-link-copy"
          onClick={() => void copyText(link).then(setCopied)}
        >
          {copied ? t.copied : t.copy}
        </button>
      </div>
      <p className="field-hint">
        {copied === false ? t.copyFailed : fill(t.inviteLinkHint, { at: formatDateTime(invitation.expiresAt, locale) })}
      </p>
      <div className="form-actions">
        <button type="button" className="button button-small button-quiet" data-testid="invite-link-done" onClick={onDone}>
          {t.done}
        </button>
      </div>
    </div>
  );
}

function InvitationRow({ invitation, onRevoke }: { invitation: InvitationView; onRevoke?: () => void }) {
  const t = useT();
  const locale = useLocale();
  const { workspace } = useShell();
  // Only owners touch the owner role, invitations for it included.
  const mayRevoke = onRevoke && (invitation.role !== 'owner' || workspace.role === 'owner');
  const by = invitation.invitedBy?.displayName;
  const when =
    invitation.status === 'pending'
      ? fill(t.invitationExpires, { at: formatDateTime(invitation.expiresAt, locale) })
      : invitation.status === 'accepted'
        ? fill(t.invitationAcceptedAt, { at: formatDateTime(invitation.acceptedAt, locale) })
        : invitation.status === 'revoked'
          ? fill(t.invitationRevokedAt, { at: formatDateTime(invitation.revokedAt, locale) })
          : fill(t.invitationExpiredAt, { at: formatDateTime(invitation.expiresAt, locale) });
  return (
    <li className="member-row" data-testid="invitation-row" data-invitation-id={invitation.id} data-status={invitation.status}>
      <span className="member-names">
        <span className="member-name">{invitation.email}</span>
        <span className="member-email">
          {by ? `${fill(t.invitationBy, { name: by })} · ` : ''}
          {when}
        </span>
      </span>
      <span className="member-actions">
        <span className="pill">{t[`role_${invitation.role}`]}</span>
        {invitation.status !== 'pending' && (
          <span className={`pill pill-invitation-${invitation.status}`}>{t[`invitationStatus_${invitation.status}`]}</span>
        )}
        {mayRevoke && (
          <button
            type="button"
            className="button button-small button-danger-quiet"
            data-testid="invitation-revoke"
            aria-label={fill(t.invitationRevokeOf, { email: invitation.email })}
            onClick={onRevoke}
          >
            {t.invitationRevoke}
          </button>
        )}
      </span>
    </li>
  );
}
