import { Injectable } from '@nestjs/common';
import {
  createVaultAccountRequestSchema,
  type AgentVaultView,
  type CreateVaultAccountRequest,
  type UpdateVaultAccountRequest,
  type VaultAccountView,
  type VaultGrantsRequest,
  type VaultImportRequest,
  type VaultImportResult,
  type VaultRevealRequest,
  type VaultRevealView,
  type VaultTotpCodeView,
} from '@lazyboy/contracts';
import type { z } from 'zod';
import { AccountsRepository } from '../accounts/accounts.repository.js';
import { verifyPassword } from '../accounts/password-hasher.js';
import { AuditService, type AuditDetails } from '../audit/audit.service.js';
import type { Principal } from '../auth/principal.js';
import { ApiError, conflict, forbidden, notFound } from '../common/api-error.js';
import { invalidField } from '../model/model-settings-rules.js';
import { WorkspaceAccess } from '../tenancy/workspace-access.js';
import { parsePasswordExport, PasswordExportError } from './password-csv.js';
import { parseTotpInput, totpCode, totpSecretOf, TotpInputError } from './totp.js';
import { VaultRevealLimiter } from './vault-reveal-limiter.js';
import { VaultSecrets, type SealedLogin } from './vault-secrets.js';
import { VaultRepository, type NewVaultAccount, type VaultAccountRow, type VaultWriteRefusal } from './vault.repository.js';

type CreateBody = z.output<typeof createVaultAccountRequestSchema>;
/** Who owns the accounts a request writes: one agent, or the workspace's shared set. */
type Owner = { workspaceId: string; agentId: string | null };

/**
 * The vault as people use it. An agent's own accounts are for every member who sees the agent; the
 * workspace's shared accounts are listed to members and written, granted and shown only by owners; a
 * stored password or TOTP secret is read back by an owner who re-enters their own password. Every
 * change, reveal and code shown is audited, never with a value.
 */
@Injectable()
export class VaultService {
  constructor(
    private readonly vault: VaultRepository,
    private readonly secrets: VaultSecrets,
    private readonly access: WorkspaceAccess,
    private readonly accounts: AccountsRepository,
    private readonly audit: AuditService,
    private readonly revealLimiter: VaultRevealLimiter,
  ) {}

  async agentVault(principal: Principal, agentId: string): Promise<AgentVaultView> {
    const agent = await this.visibleAgent(principal, agentId);
    const { own, shared } = await this.vault.listForAgent(agent.workspaceId, agent.id);
    return { own: own.map((row) => this.view(row)), shared: shared.map((row) => this.view(row)) };
  }

  async sharedAccounts(principal: Principal, workspaceId: string): Promise<VaultAccountView[]> {
    await this.access.require(principal, workspaceId);
    return (await this.vault.listShared(workspaceId)).map((row) => this.view(row));
  }

  async createForAgent(
    principal: Principal,
    agentId: string,
    body: CreateVaultAccountRequest,
    ip?: string,
  ): Promise<VaultAccountView> {
    const agent = await this.visibleAgent(principal, agentId);
    return this.create(principal, { workspaceId: agent.workspaceId, agentId: agent.id }, body as CreateBody, ip);
  }

  async createShared(
    principal: Principal,
    workspaceId: string,
    body: CreateVaultAccountRequest,
    ip?: string,
  ): Promise<VaultAccountView> {
    await this.access.require(principal, workspaceId, 'owner');
    return this.create(principal, { workspaceId, agentId: null }, body as CreateBody, ip);
  }

  async update(principal: Principal, accountId: string, body: UpdateVaultAccountRequest, ip?: string): Promise<VaultAccountView> {
    const current = await this.writable(principal, accountId);
    const sealed = this.secrets.open(current.id, current.secretCipher);
    const next: SealedLogin = {
      password: body.password ?? sealed.password,
      totp: body.totp === undefined ? sealed.totp : body.totp === null ? null : totpOrInvalid(body.totp),
      notes: body.notes ?? sealed.notes,
    };
    const secretsChanged = body.password !== undefined || body.totp !== undefined || body.notes !== undefined;
    const updated = await this.vault.update(current.workspaceId, current.id, {
      ...(body.site !== undefined ? { site: body.site } : {}),
      ...(body.username !== undefined ? { username: body.username } : {}),
      ...(body.label !== undefined ? { label: body.label } : {}),
      ...(secretsChanged ? { secretCipher: this.secrets.seal(next), hasTotp: next.totp !== null } : {}),
    });
    if (updated === null) throw notFound('vault account');
    if (typeof updated === 'string') throw refused(updated);
    await this.record(principal, current, 'vault.account_update', ip, { fields: Object.keys(body).sort() });
    return this.view(updated);
  }

  async remove(principal: Principal, accountId: string, ip?: string): Promise<void> {
    const current = await this.writable(principal, accountId);
    if (!(await this.vault.delete(current.workspaceId, current.id))) throw notFound('vault account');
    await this.record(principal, current, 'vault.account_delete', ip, { site: current.site });
  }

  async setGrants(principal: Principal, accountId: string, body: VaultGrantsRequest, ip?: string): Promise<VaultAccountView> {
    const current = await this.visibleAccount(principal, accountId);
    if (current.agentId !== null)
      throw invalidField('agentIds', "an agent's own account is not shared: only shared accounts take grants");
    await this.access.require(principal, current.workspaceId, 'owner');
    const updated = await this.vault.setGrants(current.workspaceId, current.id, body.agentIds);
    if (updated === null) throw notFound('vault account');
    if (updated === false) throw invalidField('agentIds', 'every agent must be an agent of this workspace');
    await this.record(principal, current, 'vault.grants_change', ip, { agentIds: updated.grants.map((g) => g.agentId) });
    return this.view(updated);
  }

  /** An owner, with their own password again, reads the stored secrets; five wrong passwords in 15 minutes wait. */
  async reveal(principal: Principal, accountId: string, body: VaultRevealRequest, ip?: string): Promise<VaultRevealView> {
    const current = await this.visibleAccount(principal, accountId);
    await this.access.require(principal, current.workspaceId, 'owner');
    await this.revealLimiter.check(principal.userId);
    const hash = await this.accounts.passwordHashOf(principal.userId);
    if (!hash || !(await verifyPassword(body.password, hash))) {
      await this.revealLimiter.failed(principal.userId);
      await this.record(principal, current, 'vault.reveal_refused', ip, { site: current.site });
      throw forbidden('that is not your password', 'password_mismatch');
    }
    const sealed = this.secrets.open(current.id, current.secretCipher);
    await this.record(principal, current, 'vault.account_reveal', ip, { site: current.site });
    return { password: sealed.password, totpSecret: sealed.totp === null ? null : totpSecretOf(sealed.totp) };
  }

  /** The current one-time code for a person finishing a sign-in themselves (shared accounts: owners). */
  async currentCode(principal: Principal, accountId: string, ip?: string): Promise<VaultTotpCodeView> {
    const current = await this.writable(principal, accountId);
    const sealed = this.secrets.open(current.id, current.secretCipher);
    if (sealed.totp === null) throw notFound('TOTP secret of this account');
    await this.record(principal, current, 'vault.totp_code_view', ip, { site: current.site });
    return totpCode(sealed.totp);
  }

  async importForAgent(principal: Principal, agentId: string, body: VaultImportRequest, ip?: string): Promise<VaultImportResult> {
    const agent = await this.visibleAgent(principal, agentId);
    return this.importCsv(principal, { workspaceId: agent.workspaceId, agentId: agent.id }, body, ip);
  }

  async importShared(
    principal: Principal,
    workspaceId: string,
    body: VaultImportRequest,
    ip?: string,
  ): Promise<VaultImportResult> {
    await this.access.require(principal, workspaceId, 'owner');
    return this.importCsv(principal, { workspaceId, agentId: null }, body, ip);
  }

  // ---------------------------------------------------------------------------------------------------

  private async create(principal: Principal, owner: Owner, body: CreateBody, ip?: string): Promise<VaultAccountView> {
    const account = this.newAccount(owner, body);
    const created = await this.vault.create(account);
    if (typeof created === 'string') throw refused(created);
    await this.record(principal, created, 'vault.account_create', ip, { site: created.site });
    return this.view(created);
  }

  private newAccount(owner: Owner, body: CreateBody): NewVaultAccount {
    const totp = body.totp === undefined ? null : totpOrInvalid(body.totp);
    return {
      ...owner,
      site: body.site,
      username: body.username,
      label: body.label ?? '',
      secretCipher: this.secrets.seal({ password: body.password, totp, notes: body.notes ?? '' }),
      hasTotp: totp !== null,
    };
  }

  private async importCsv(principal: Principal, owner: Owner, body: VaultImportRequest, ip?: string): Promise<VaultImportResult> {
    let parsed;
    try {
      parsed = parsePasswordExport(body.csv);
    } catch (error) {
      if (error instanceof PasswordExportError) throw invalidField('csv', error.message);
      throw error;
    }
    const skipped = [...parsed.skipped];
    const accounts: NewVaultAccount[] = [];
    for (const login of parsed.logins) {
      try {
        accounts.push(
          this.newAccount(owner, { ...login, ...(login.notes === undefined ? {} : { notes: login.notes.slice(0, 4_000) }) }),
        );
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        skipped.push({ line: login.line, reason: 'totp: not a TOTP secret' });
      }
    }
    const result = await this.vault.createMany(accounts);
    if (result === 'full') throw refused('full');
    await this.audit.record({
      workspaceId: owner.workspaceId,
      actorUserId: principal.userId,
      action: 'vault.import',
      targetType: owner.agentId ? 'agent' : 'workspace',
      targetId: owner.agentId ?? owner.workspaceId,
      details: { imported: result.created, duplicates: result.duplicates, skipped: skipped.length },
      ip: ip ?? null,
    });
    return { imported: result.created, duplicates: result.duplicates, skipped: skipped.sort((a, b) => a.line - b.line) };
  }

  private async visibleAgent(principal: Principal, agentId: string): Promise<{ id: string; workspaceId: string }> {
    const agent = await this.vault.visibleAgent(principal, agentId);
    if (!agent) throw notFound('agent');
    return agent;
  }

  private async visibleAccount(principal: Principal, accountId: string): Promise<VaultAccountRow> {
    const account = await this.vault.findVisible(principal, accountId);
    if (!account) throw notFound('vault account');
    return account;
  }

  /** An agent's account for any member; a shared one for owners only (403 for the others). */
  private async writable(principal: Principal, accountId: string): Promise<VaultAccountRow> {
    const account = await this.visibleAccount(principal, accountId);
    await this.access.require(principal, account.workspaceId, account.agentId === null ? 'owner' : 'member');
    return account;
  }

  private view(row: VaultAccountRow): VaultAccountView {
    return {
      id: row.id,
      workspaceId: row.workspaceId,
      agentId: row.agentId,
      site: row.site,
      username: row.username,
      label: row.label,
      hasTotp: row.hasTotp,
      notes: this.notesOf(row),
      agentIds: row.grants.map((grant) => grant.agentId),
      lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** The notes, or '' when the box cannot be opened (the vault key changed): the list still shows the account. */
  private notesOf(row: VaultAccountRow): string {
    try {
      return this.secrets.open(row.id, row.secretCipher).notes;
    } catch {
      return '';
    }
  }

  private record(
    principal: Principal,
    account: Pick<VaultAccountRow, 'id' | 'workspaceId'>,
    action: string,
    ip: string | undefined,
    details: AuditDetails,
  ) {
    return this.audit.record({
      workspaceId: account.workspaceId,
      actorUserId: principal.userId,
      action,
      targetType: 'vault_account',
      targetId: account.id,
      details,
      ip: ip ?? null,
    });
  }
}

function totpOrInvalid(input: string): string {
  try {
    return parseTotpInput(input);
  } catch (error) {
    if (error instanceof TotpInputError) throw invalidField('totp', error.message);
    throw error;
  }
}

function refused(refusal: VaultWriteRefusal): ApiError {
  return refusal === 'duplicate'
    ? conflict('vault_account_exists', 'an account with this site and username is already saved')
    : conflict('vault_full', 'this vault holds the most accounts it may (500): delete some first');
}
