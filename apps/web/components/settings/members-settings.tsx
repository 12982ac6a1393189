'use client';

import { useId, useState } from 'react';
import { useRouter } from 'next/navigation';
import type { MemberView, MembershipRole } from '@lazyboy/contracts';
import { fill } from '../../locales';
import { workspaces } from '../../lib/endpoints';
import { errorText } from '../../lib/error-text';
import { useT } from '../../lib/i18n';
import { assignableRoles, canManage, canRemove } from '../../lib/roles';
import { useShell } from '../../lib/shell-context';
import { ConfirmDialog } from '../dialog';
import { ErrorBanner } from '../error-banner';
import { InvitationsSection } from './invitations-section';
import { AskAnOwner, SettingsSection } from './settings-frame';
import { useWorkspaceItems } from './use-workspace-items';

type Dialog = { kind: 'remove'; member: MemberView } | { kind: 'leave' };

/** /settings/members: who is in the workspace and with which role; changing roles, removing, leaving. */
export function MembersSettings() {
  const t = useT();
  const router = useRouter();
  const { me, workspace, refreshMe } = useShell();
  const {
    items: members,
    setItems: setMembers,
    error: loadError,
    reload: load,
  } = useWorkspaceItems<MemberView>(workspaces.members);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [dialogError, setDialogError] = useState<string | null>(null);
  const manager = canManage(workspace.role);

  async function changeRole(member: MemberView, role: MembershipRole) {
    setBusyId(member.userId);
    setActionError(null);
    try {
      const changed = await workspaces.changeRole(workspace.id, member.userId, role);
      setMembers((list) => list?.map((m) => (m.userId === changed.userId ? changed : m)) ?? list);
      // One's own role decides what the pages offer: read it again.
      if (member.userId === me.user.id) refreshMe();
    } catch (failure) {
      setActionError(errorText(failure, t));
    } finally {
      setBusyId(null);
    }
  }

  function open(next: Dialog) {
    setDialogError(null);
    setDialog(next);
  }

  async function confirm(work: () => Promise<void>) {
    try {
      await work();
      setDialog(null);
    } catch (failure) {
      setDialogError(errorText(failure, t));
    }
  }

  return (
    <>
      {!manager && <AskAnOwner text={t.membersMemberNote} />}
      <SettingsSection title={t.membersTitle} testId="members-section">
        {loadError !== null && <ErrorBanner message={errorText(loadError, t)} onRetry={() => void load()} />}
        {actionError && <ErrorBanner message={actionError} />}
        {members === null ? (
          loadError === null && <p className="chat-loading">{t.loading}</p>
        ) : (
          <ul className="member-list" data-testid="member-list">
            {members.map((member) => (
              <MemberRow
                key={member.userId}
                member={member}
                self={member.userId === me.user.id}
                callerRole={workspace.role}
                busy={busyId === member.userId}
                onRole={(role) => void changeRole(member, role)}
                onRemove={() => open({ kind: 'remove', member })}
              />
            ))}
          </ul>
        )}
      </SettingsSection>
      {manager && <InvitationsSection />}
      <SettingsSection title={t.membersLeaveTitle} description={t.membersLeaveText} testId="leave-section">
        <div className="form-actions form-actions-start">
          <button
            type="button"
            className="button button-danger-quiet"
            data-testid="leave-workspace"
            onClick={() => open({ kind: 'leave' })}
          >
            {t.membersLeave}
          </button>
        </div>
      </SettingsSection>
      {dialog?.kind === 'remove' && (
        <ConfirmDialog
          title={t.membersRemove}
          body={fill(t.membersRemoveConfirm, {
            name: dialog.member.displayName || dialog.member.email,
            workspace: workspace.name,
          })}
          confirmLabel={t.membersRemove}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            confirm(async () => {
              await workspaces.removeMember(workspace.id, dialog.member.userId);
              setMembers((list) => list?.filter((m) => m.userId !== dialog.member.userId) ?? list);
            })
          }
        />
      )}
      {dialog?.kind === 'leave' && (
        <ConfirmDialog
          title={t.membersLeave}
          body={fill(t.membersLeaveConfirm, { workspace: workspace.name })}
          confirmLabel={t.membersLeave}
          danger
          error={dialogError}
          onClose={() => setDialog(null)}
          onConfirm={() =>
            confirm(async () => {
              await workspaces.removeMember(workspace.id, me.user.id);
              // The shell picks another workspace of the person (or says they have none).
              refreshMe();
              router.push('/');
            })
          }
        />
      )}
    </>
  );
}

interface MemberRowProps {
  member: MemberView;
  self: boolean;
  callerRole: MembershipRole;
  busy: boolean;
  onRole(role: MembershipRole): void;
  onRemove(): void;
}

function MemberRow({ member, self, callerRole, busy, onRole, onRemove }: MemberRowProps) {
  const t = useT();
  const roleId = useId();
  const roles = assignableRoles(callerRole, member.role);
  const name = member.displayName || member.email;
  return (
    <li className="member-row" data-testid="member-row" data-user-id={member.userId} data-role={member.role}>
      <span className="user-initial" aria-hidden="true">
        {name.slice(0, 1).toUpperCase()}
      </span>
      <span className="member-names">
        <span className="member-name">
          {member.displayName}
          {self && <span className="member-you"> {t.membersYou}</span>}
        </span>
        <span className="member-email">{member.email}</span>
      </span>
      <span className="member-actions">
        {roles.length > 0 ? (
          <>
            <label htmlFor={roleId} className="visually-hidden">
              {fill(t.membersRoleOf, { name })}
            </label>
            <select
              id={roleId}
              className="member-role-select"
              data-testid="member-role"
              value={member.role}
              disabled={busy}
              onChange={(event) => onRole(event.target.value as MembershipRole)}
            >
              {/* The current role stays listed even when the caller could not give it. */}
              {(roles.includes(member.role) ? roles : [member.role, ...roles]).map((role) => (
                <option key={role} value={role}>
                  {t[`role_${role}`]}
                </option>
              ))}
            </select>
          </>
        ) : (
          <span className="pill" data-testid="member-role-label">
            {t[`role_${member.role}`]}
          </span>
        )}
        {!self && canRemove(callerRole, member.role) && (
          <button
            type="button"
            className="button button-small button-danger-quiet"
            data-testid="member-remove"
            disabled={busy}
            aria-label={fill(t.membersRemoveOf, { name })}
            onClick={onRemove}
          >
            {t.membersRemove}
          </button>
        )}
      </span>
    </li>
  );
}
