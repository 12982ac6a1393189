import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { MeView, SignupRequest } from '@lazyboy/contracts';
import { AccountsRepository, type LoginAccount } from '../accounts/accounts.repository.js';
import { hashPassword, verifyPassword } from '../accounts/password-hasher.js';
import { AuditService } from '../audit/audit.service.js';
import { ApiError, conflict, forbidden } from '../common/api-error.js';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { InstanceSettingsService } from '../instance/instance-settings.service.js';
import { acceptRefused } from '../invitations/invitation-errors.js';
import { InvitationsService } from '../invitations/invitations.service.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { RealtimePublisher } from '../realtime/realtime-publisher.js';
import { TenancyRepository } from '../tenancy/tenancy.repository.js';
import { createWithUniqueSlug } from '../tenancy/workspace-slug.js';
import { toSummary } from '../tenancy/workspace-views.js';
import { KnownDevices } from './known-device.js';
import { isRefusal, LoginRateLimiter, rateLimited, type LoginGoAhead } from './login-rate-limiter.js';
import { SignupRateLimiter } from './signup-rate-limiter.js';
import { LoginSessionsRepository } from './login-sessions.repository.js';
import type { Principal } from './principal.js';
import { randomSecret, sha256Hex } from './secrets.js';
import { encodeSessionCookie } from './session-cookie.js';

/** The one answer to every failed sign-in: it must not tell which of email and password was wrong. */
export const WRONG_CREDENTIALS = 'wrong email or password';

/** Where a request came from, for sessions, rate limits and the audit log. */
export interface RequestOrigin {
  ip?: string;
  userAgent?: string;
  /** The known-device cookie the browser sent, unverified (sign-in only). */
  knownDevice?: string;
}

export interface StartedSession {
  /** The session cookie's value. */
  cookie: string;
  maxAgeSeconds: number;
  /** A fresh known-device cookie's value: this browser has now signed in to the account. */
  knownDevice: string;
}

@Injectable()
export class AuthService implements OnModuleInit {
  /** Verified against for unknown emails, so they take as long to refuse as a wrong password. */
  private decoyHash = '';

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly accounts: AccountsRepository,
    private readonly tenancy: TenancyRepository,
    private readonly sessions: LoginSessionsRepository,
    private readonly limiter: LoginRateLimiter,
    private readonly devices: KnownDevices,
    private readonly signups: SignupRateLimiter,
    private readonly audit: AuditService,
    private readonly realtime: RealtimePublisher,
    private readonly instance: InstanceSettingsService,
    private readonly invitations: InvitationsService,
  ) {}

  async onModuleInit(): Promise<void> {
    this.decoyHash = await hashPassword(randomSecret());
  }

  /**
   * Checks email and password (the local strategy's verify step). Every outcome is audited, never with
   * the password; refusals by the rate limits only once per window, and an account's (or known device's)
   * first wait as it starts. Throws UNAUTHENTICATED with one generic message, or RATE_LIMITED.
   */
  async verifyCredentials(email: string, password: string, origin: RequestOrigin): Promise<Principal> {
    const ip = origin.ip ?? 'unknown';
    const device = this.devices.verify(origin.knownDevice, email);
    // Counted before the password is checked: parallel guesses each take an attempt while scrypt runs.
    const check = await this.limiter.attempt(email, ip, device);
    if (isRefusal(check)) {
      if (check.first) await this.recordFailure(email, null, 'rate_limited', origin);
      throw rateLimited(check);
    }
    const account = await this.accounts.findForLogin(email);
    const passwordOk = await verifyPassword(password, account?.passwordHash ?? this.decoyHash);
    const reason = failureReason(account, passwordOk);
    if (reason || !account) {
      await this.recordFailure(email, account?.id ?? null, reason ?? 'unknown_email', origin);
      if (check.locks) await this.recordLock(email, account?.id ?? null, check.locks, origin);
      throw new ApiError('UNAUTHENTICATED', WRONG_CREDENTIALS);
    }
    await this.limiter.succeeded(email, ip, device);
    return {
      userId: account.id,
      email: account.email,
      displayName: account.displayName,
      isAdmin: account.isAdmin,
      via: 'session',
      tokenWorkspaceId: null,
    };
  }

  /** A new LoginSession for a verified user; the cookie carries its id and a secret only its digest is stored. */
  async startSession(principal: Principal, origin: RequestOrigin, action = 'auth.login'): Promise<StartedSession> {
    const now = new Date();
    const maxAgeSeconds = this.config.LAZYBOY_SESSION_TTL_HOURS * 3_600;
    const secret = randomSecret();
    const loginSessionId = await this.sessions.create({
      userId: principal.userId,
      secretHash: sha256Hex(secret),
      expiresAt: new Date(now.getTime() + maxAgeSeconds * 1_000),
      ip: origin.ip ?? null,
      userAgent: origin.userAgent?.slice(0, 500) ?? null,
    });
    principal.loginSessionId = loginSessionId;
    await this.accounts.markLoggedIn(principal.userId, now);
    await this.audit.record({
      actorUserId: principal.userId,
      action,
      targetType: 'user',
      targetId: principal.userId,
      details: { loginSessionId },
      ip: origin.ip,
    });
    return {
      cookie: encodeSessionCookie({ loginSessionId, secret }),
      maxAgeSeconds,
      knownDevice: this.devices.issue(principal.email),
    };
  }

  /**
   * A new user, signed in at once, as the sign-up policy allows: `closed` refuses everyone (403
   * signup_closed); `invite` needs an invitation (403 signup_invitation_required); through an invitation
   * (under `invite` or `open`) the user joins its workspace with its role, without a workspace of their own;
   * without one (`open` only) they get a personal workspace they own. 409 when the email is taken, 429 past
   * the address's allowance.
   */
  async signup(request: SignupRequest, origin: RequestOrigin): Promise<{ principal: Principal; session: StartedSession }> {
    await this.signups.attempt(origin.ip ?? 'unknown');
    const policy = await this.instance.signupPolicy();
    if (policy === 'closed') {
      throw forbidden('sign-up is closed on this server: ask an administrator for an account', 'signup_closed');
    }
    if (!request.invitationToken && policy === 'invite') {
      throw forbidden(
        'sign-up needs an invitation on this server: ask a workspace owner for a link',
        'signup_invitation_required',
      );
    }
    if (request.invitationToken) await this.invitations.checkForSignup(request.invitationToken, request.email);
    if (await this.accounts.emailTaken(request.email))
      throw request.invitationToken ? acceptRefused('email_taken') : emailTaken();
    const passwordHash = await hashPassword(request.password);
    const created: { userId: string; workspaceId: string; invitationId?: string } = request.invitationToken
      ? await this.invitations.signUp(
          request.invitationToken,
          { email: request.email, displayName: request.displayName, passwordHash },
          origin.ip,
        )
      : await this.createWithPersonalWorkspace(request, passwordHash);
    await this.audit.record({
      workspaceId: created.workspaceId,
      actorUserId: created.userId,
      action: 'auth.signup',
      targetType: 'user',
      targetId: created.userId,
      details: {
        workspaceId: created.workspaceId,
        ...(created.invitationId ? { invitationId: created.invitationId } : {}),
      },
      ip: origin.ip,
    });
    const principal: Principal = {
      userId: created.userId,
      email: request.email,
      displayName: request.displayName,
      isAdmin: false,
      via: 'session',
      tokenWorkspaceId: null,
    };
    return { principal, session: await this.startSession(principal, origin) };
  }

  private createWithPersonalWorkspace(
    request: SignupRequest,
    passwordHash: string,
  ): Promise<{ userId: string; workspaceId: string }> {
    return createWithUniqueSlug(
      request.email.split('@')[0] ?? '',
      (slug) => this.tenancy.slugTaken(slug),
      async (slug) => {
        try {
          return await this.accounts.createWithWorkspace({
            email: request.email,
            displayName: request.displayName,
            passwordHash,
            workspaceName: request.displayName,
            workspaceSlug: slug,
          });
        } catch (error) {
          // The same email signed up concurrently: a conflict, not a slug to retry with another suffix.
          if (isUniqueViolation(error) && (await this.accounts.emailTaken(request.email))) throw emailTaken();
          throw error;
        }
      },
    );
  }

  /**
   * Ends the cookie's LoginSession (a bearer caller has none: nothing to end) and closes the user's sockets:
   * one of them was authenticated with the cookie that no longer works. Sockets are tracked per user, so
   * those of the user's other sessions close too; their clients may connect again with their own cookies.
   */
  async logout(principal: Principal, origin: RequestOrigin): Promise<void> {
    if (!principal.loginSessionId) return;
    await this.sessions.revoke(principal.loginSessionId, new Date());
    await this.realtime.disconnectUser(principal.userId);
    await this.audit.record({
      actorUserId: principal.userId,
      action: 'auth.logout',
      targetType: 'user',
      targetId: principal.userId,
      details: { loginSessionId: principal.loginSessionId },
      ip: origin.ip,
    });
  }

  async me(principal: Principal): Promise<MeView> {
    const workspaces = await this.tenancy.workspacesOf(principal.userId, principal.tokenWorkspaceId);
    return {
      user: { id: principal.userId, email: principal.email, displayName: principal.displayName, isAdmin: principal.isAdmin },
      workspaces: workspaces.map(toSummary),
    };
  }

  private async recordFailure(email: string, userId: string | null, reason: string, origin: RequestOrigin): Promise<void> {
    await this.audit.record({
      actorUserId: userId,
      action: 'auth.login_failed',
      targetType: 'user',
      targetId: userId,
      details: { email, reason },
      ip: origin.ip,
    });
  }

  private async recordLock(
    email: string,
    userId: string | null,
    lock: NonNullable<LoginGoAhead['locks']>,
    origin: RequestOrigin,
  ): Promise<void> {
    await this.audit.record({
      actorUserId: null,
      action: 'auth.login_locked',
      targetType: 'user',
      targetId: userId,
      details: { email, scope: lock.scope, failures: lock.failures, waitSeconds: lock.waitSeconds },
      ip: origin.ip,
    });
  }
}

function failureReason(account: LoginAccount | null, passwordOk: boolean): string | null {
  if (!account) return 'unknown_email';
  if (!account.passwordHash || !passwordOk) return 'wrong_password';
  // Checked after the password, so a disabled account is only named in the audit log of someone who knew it.
  if (account.disabledAt) return 'disabled';
  return null;
}

function emailTaken(): ApiError {
  return conflict('email_taken', 'an account with this email already exists');
}
