import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  invitationPath,
  type CreatedInvitationView,
  type CreateInvitationRequest,
  type InvitationDelivery,
  type InvitationPreviewView,
  type MailFailureReason,
  type InvitationView,
  type WorkspaceSummaryView,
} from '@lazyboy/contracts';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { randomSecret, sha256Hex } from '../auth/secrets.js';
import { SignupRateLimiter } from '../auth/signup-rate-limiter.js';
import { conflict, forbidden, notFound } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { MAIL_TRANSPORT, MailDeliveryError, type MailTransport } from '../mail/mail-transport.js';
import { TenancyRepository } from '../tenancy/tenancy.repository.js';
import { WorkspaceAccess } from '../tenancy/workspace-access.js';
import { toSummary } from '../tenancy/workspace-views.js';
import { acceptRefused, createRefused } from './invitation-errors.js';
import { invitationMail } from './invitation-mail.js';
import { InvitationMailLimiter } from './invitation-mail-limiter.js';
import { invitationStatus, toInvitationView } from './invitation-views.js';
import { InvitationsRepository, type Accepted, type InvitationRow, type InvitedAccount } from './invitations.repository.js';

const DAY_MS = 24 * 60 * 60 * 1_000;

interface Delivery {
  delivery: InvitationDelivery;
  deliveryFailure: MailFailureReason | null;
}

/**
 * Invitations to a workspace: owners and admins make them (only owners for the owner role), list and revoke
 * them; whoever holds a link may look at it, and its email's person accepts it once, signing up through it
 * (AuthService) or signed in. The token exists only in the creation's answer and the link: the database
 * keeps its SHA-256, and no audit row or log line names it. With a mail transport the link is also mailed
 * to the invited address, after the invitation is stored: a mail that fails leaves the invitation as it is.
 */
@Injectable()
export class InvitationsService {
  private readonly logger = new Logger(InvitationsService.name);

  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly access: WorkspaceAccess,
    private readonly tenancy: TenancyRepository,
    private readonly instance: InstanceSettingsService,
    private readonly limiter: SignupRateLimiter,
    private readonly audit: AuditService,
    private readonly mailLimiter: InvitationMailLimiter,
    @Inject(MAIL_TRANSPORT) private readonly mail: MailTransport | null,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async create(
    principal: Principal,
    workspaceId: string,
    request: CreateInvitationRequest,
    ip?: string,
  ): Promise<CreatedInvitationView> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    if (request.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may invite owners');
    const token = randomSecret();
    const outcome = await this.invitations.create({
      workspaceId,
      email: request.email,
      role: request.role,
      tokenHash: sha256Hex(token),
      invitedById: principal.userId,
      expiresAt: new Date(Date.now() + request.expiresInDays * DAY_MS),
    });
    if ('refused' in outcome) throw createRefused(outcome.refused);
    const { row, replaced } = outcome;
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'invitation.create',
      targetType: 'invitation',
      targetId: row.id,
      details: {
        email: row.email,
        role: row.role,
        expiresAt: row.expiresAt.toISOString(),
        ...(replaced.length > 0 ? { replaced } : {}),
      },
      ip,
    });
    const delivery = await this.mailLink(principal, row, token, ip);
    return { ...toInvitationView(row), token, path: invitationPath(token), ...delivery };
  }

  /** Mails the new invitation's link when there is a transport; a failure is logged and audited, never thrown. */
  private async mailLink(principal: Principal, row: InvitationRow, token: string, ip?: string): Promise<Delivery> {
    const publicUrl = this.config.LAZYBOY_PUBLIC_URL;
    if (!this.mail || publicUrl === undefined) return { delivery: 'not_configured', deliveryFailure: null };
    try {
      if (!(await this.mailLimiter.allow(row.email, principal.userId))) {
        throw new MailDeliveryError('rate_limited', 'too many invitation mails to this address or from this inviter in the hour');
      }
      const facts = await this.invitations.preview(sha256Hex(token));
      if (!facts) throw new MailDeliveryError('other', 'the invitation was gone before its mail was written');
      await this.mail.send(
        invitationMail({
          to: row.email,
          link: `${publicUrl}${invitationPath(token)}`,
          workspaceName: facts.workspaceName,
          inviterDisplayName: facts.inviterDisplayName,
          role: row.role,
          expiresAt: row.expiresAt,
        }),
      );
      return { delivery: 'mailed', deliveryFailure: null };
    } catch (error) {
      // Only a MailDeliveryError's text is known to be clean of the token and the SMTP password.
      const failure =
        error instanceof MailDeliveryError
          ? error
          : new MailDeliveryError('other', error instanceof Error ? error.name : 'unknown error');
      this.logger.warn(`invitation ${row.id}: the link was not mailed: ${failure.message}`);
      await this.audit.record({
        workspaceId: row.workspaceId,
        actorUserId: principal.userId,
        action: 'invitation.mail_failed',
        targetType: 'invitation',
        targetId: row.id,
        details: { email: row.email, reason: failure.reason },
        ip,
      });
      return { delivery: 'failed', deliveryFailure: failure.reason };
    }
  }

  async list(principal: Principal, workspaceId: string): Promise<InvitationView[]> {
    await this.access.require(principal, workspaceId, 'admin');
    const now = new Date();
    return (await this.invitations.list(workspaceId)).map((row) => toInvitationView(row, now));
  }

  /**
   * Revokes a pending (or expired) invitation: admins those for members and admins, owners any. Revoking a
   * revoked one again changes nothing; an accepted one is 409 invitation_used (remove the member instead).
   */
  async revoke(principal: Principal, workspaceId: string, invitationId: string, ip?: string): Promise<void> {
    const callerRole = await this.access.require(principal, workspaceId, 'admin');
    const row = await this.invitations.find(workspaceId, invitationId);
    if (!row) throw notFound('invitation');
    if (row.role === 'owner' && callerRole !== 'owner') throw forbidden('only owners may revoke invitations for owners');
    if (!(await this.invitations.revoke(workspaceId, invitationId, principal.userId))) {
      const now = await this.invitations.find(workspaceId, invitationId);
      if (now?.acceptedAt) throw conflict('invitation_used', 'this invitation was accepted already: remove the member instead');
      return;
    }
    await this.audit.record({
      workspaceId,
      actorUserId: principal.userId,
      action: 'invitation.revoke',
      targetType: 'invitation',
      targetId: invitationId,
      details: { email: row.email, role: row.role },
      ip,
    });
  }

  /** What the sign-up page of a link shows; counted per address like sign-ups. An unknown token is 404. */
  async preview(token: string, ip?: string): Promise<InvitationPreviewView> {
    await this.limiter.lookup(ip ?? 'unknown');
    const row = await this.invitations.preview(sha256Hex(token));
    if (!row) throw notFound('invitation');
    const status = invitationStatus(row);
    return {
      workspaceName: row.workspaceName,
      role: row.role,
      inviterDisplayName: row.inviterDisplayName,
      status,
      valid: status === 'pending',
      expiresAt: row.expiresAt.toISOString(),
      signupAllowed: (await this.instance.signupPolicy()) !== 'closed',
    };
  }

  /** A signed-in person accepts an invitation sent to their account's email and joins the workspace with its role. */
  async accept(principal: Principal, token: string, ip?: string): Promise<WorkspaceSummaryView> {
    // Such a token reaches one workspace only; joining another is the person's own decision, in a browser.
    if (principal.tokenWorkspaceId) throw forbidden('this API token is limited to one workspace');
    const outcome = await this.invitations.acceptForUser(sha256Hex(token), principal.email, principal.userId);
    if ('refused' in outcome) throw acceptRefused(outcome.refused);
    await this.recordAccepted(outcome, false, ip);
    const workspace = await this.tenancy.workspaceOf(principal.userId, outcome.workspaceId);
    // Removed again between our write and this read by someone else: it is gone for the caller too.
    if (!workspace) throw notFound('workspace');
    return toSummary(workspace);
  }

  /**
   * Whether a sign-up may go ahead through this invitation, before its password is hashed; the claim in
   * signUp decides. Throws the refusal.
   */
  async checkForSignup(token: string, email: string): Promise<void> {
    const refusal = await this.invitations.check(sha256Hex(token), email);
    if (refusal) throw acceptRefused(refusal);
  }

  /** A new account made through an invitation, in the invitation's workspace with its role (and no other workspace). */
  async signUp(token: string, account: InvitedAccount, ip?: string): Promise<Accepted> {
    const outcome = await this.invitations.acceptWithNewAccount(sha256Hex(token), account);
    if ('refused' in outcome) throw acceptRefused(outcome.refused);
    await this.recordAccepted(outcome, true, ip);
    return outcome;
  }

  private async recordAccepted(accepted: Accepted, newAccount: boolean, ip?: string): Promise<void> {
    await this.audit.record({
      workspaceId: accepted.workspaceId,
      actorUserId: accepted.userId,
      action: 'invitation.accept',
      targetType: 'invitation',
      targetId: accepted.invitationId,
      details: { role: accepted.role, newAccount },
      ip,
    });
  }
}
