import { Injectable } from '@nestjs/common';
import { VAULT_ACCOUNTS_MAX } from '@lazyboy/contracts';
import type { Prisma } from '../persistence/generated/client.js';
import { isUniqueViolation } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import type { Principal } from '../auth/principal.js';
import { lockWorkspace } from '../tenancy/tenancy.repository.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

type Tx = Prisma.TransactionClient;

/** An account row with the agents a shared account is granted to. */
export interface VaultAccountRow {
  id: string;
  workspaceId: string;
  agentId: string | null;
  site: string;
  label: string;
  username: string;
  secretCipher: Uint8Array;
  hasTotp: boolean;
  lastUsedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  grants: { agentId: string }[];
}

export interface NewVaultAccount {
  workspaceId: string;
  /** Null: a shared account of the workspace. */
  agentId: string | null;
  site: string;
  label: string;
  username: string;
  secretCipher: Uint8Array<ArrayBuffer>;
  hasTotp: boolean;
}

export type VaultAccountChanges = Partial<Pick<NewVaultAccount, 'site' | 'label' | 'username' | 'secretCipher' | 'hasTotp'>>;

/** Why a write was refused: the same site and username already saved for that owner; the owner is full. */
export type VaultWriteRefusal = 'duplicate' | 'full';

const withGrants = { grants: { select: { agentId: true }, orderBy: { createdAt: 'asc' } } } as const;
const byAge = [{ createdAt: 'asc' }, { id: 'asc' }] as const satisfies Prisma.VaultAccountOrderByWithRelationInput[];

/** The vault's rows. Shared accounts have no agent; uniqueness of their site and username is kept under the workspace's lock. */
@Injectable()
export class VaultRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The agent when it lives in a workspace the principal may see; null for foreign and missing ids alike. */
  visibleAgent(principal: Principal, agentId: string): Promise<{ id: string; workspaceId: string } | null> {
    return this.prisma.agent.findFirst({
      where: { id: agentId, workspace: visibleWorkspaces(principal) },
      select: { id: true, workspaceId: true },
    });
  }

  /** An agent's own accounts and the shared ones granted to it. */
  async listForAgent(workspaceId: string, agentId: string): Promise<{ own: VaultAccountRow[]; shared: VaultAccountRow[] }> {
    const [own, shared] = await Promise.all([
      this.prisma.vaultAccount.findMany({ where: { workspaceId, agentId }, include: withGrants, orderBy: byAge }),
      this.prisma.vaultAccount.findMany({
        where: { workspaceId, agentId: null, grants: { some: { agentId } } },
        include: withGrants,
        orderBy: byAge,
      }),
    ]);
    return { own, shared };
  }

  listShared(workspaceId: string): Promise<VaultAccountRow[]> {
    return this.prisma.vaultAccount.findMany({ where: { workspaceId, agentId: null }, include: withGrants, orderBy: byAge });
  }

  /** The account when it lives in a workspace the principal may see; null for foreign and missing ids alike. */
  findVisible(principal: Principal, accountId: string): Promise<VaultAccountRow | null> {
    return this.prisma.vaultAccount.findFirst({
      where: { id: accountId, workspace: visibleWorkspaces(principal) },
      include: withGrants,
    });
  }

  /** An account the agent may use: its own, or a shared one granted to it. */
  findUsable(workspaceId: string, agentId: string, accountId: string): Promise<VaultAccountRow | null> {
    return this.prisma.vaultAccount.findFirst({
      where: { id: accountId, workspaceId, OR: [{ agentId }, { agentId: null, grants: { some: { agentId } } }] },
      include: withGrants,
    });
  }

  /** Every account the agent may use, for its runs' list and their secret redaction. */
  listUsable(workspaceId: string, agentId: string): Promise<VaultAccountRow[]> {
    return this.prisma.vaultAccount.findMany({
      where: { workspaceId, OR: [{ agentId }, { agentId: null, grants: { some: { agentId } } }] },
      include: withGrants,
      orderBy: byAge,
    });
  }

  async create(account: NewVaultAccount): Promise<VaultAccountRow | VaultWriteRefusal> {
    return this.prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, account.workspaceId);
      const refusal = await this.refusal(tx, account, null);
      if (refusal) return refusal;
      try {
        return await tx.vaultAccount.create({ data: account, include: withGrants });
      } catch (error) {
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
    });
  }

  /**
   * Several accounts for one owner, all in one transaction: rows whose site and username are already saved
   * (or repeat an earlier row) are counted as duplicates and left out; 'full' when the rest would not fit.
   */
  async createMany(accounts: NewVaultAccount[]): Promise<{ created: number; duplicates: number } | 'full'> {
    const first = accounts[0];
    if (!first) return { created: 0, duplicates: 0 };
    return this.prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, first.workspaceId);
      const owner = { workspaceId: first.workspaceId, agentId: first.agentId };
      const existing = await tx.vaultAccount.findMany({ where: owner, select: { site: true, username: true } });
      const seen = new Set(existing.map((row) => key(row)));
      const fresh = accounts.filter((account) => !seen.has(key(account)) && seen.add(key(account)));
      if (existing.length + fresh.length > VAULT_ACCOUNTS_MAX) return 'full';
      if (fresh.length > 0) await tx.vaultAccount.createMany({ data: fresh });
      return { created: fresh.length, duplicates: accounts.length - fresh.length };
    });
  }

  /** Changes an account of the workspace; null when it is gone. */
  async update(
    workspaceId: string,
    accountId: string,
    changes: VaultAccountChanges,
  ): Promise<VaultAccountRow | null | VaultWriteRefusal> {
    return this.prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const current = await tx.vaultAccount.findFirst({ where: { id: accountId, workspaceId } });
      if (!current) return null;
      const next = {
        workspaceId,
        agentId: current.agentId,
        site: changes.site ?? current.site,
        username: changes.username ?? current.username,
      };
      if (await this.duplicate(tx, next, accountId)) return 'duplicate';
      try {
        return await tx.vaultAccount.update({ where: { id: accountId }, data: changes, include: withGrants });
      } catch (error) {
        if (isUniqueViolation(error)) return 'duplicate';
        throw error;
      }
    });
  }

  async delete(workspaceId: string, accountId: string): Promise<boolean> {
    const { count } = await this.prisma.vaultAccount.deleteMany({ where: { id: accountId, workspaceId } });
    return count > 0;
  }

  /**
   * Which agents may use a shared account: exactly `agentIds` afterwards. False when one of them is not an
   * agent of the account's workspace (nothing changes then), null when the account is gone.
   */
  async setGrants(workspaceId: string, accountId: string, agentIds: string[]): Promise<VaultAccountRow | null | false> {
    return this.prisma.$transaction(async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const account = await tx.vaultAccount.findFirst({ where: { id: accountId, workspaceId, agentId: null } });
      if (!account) return null;
      const unique = [...new Set(agentIds)];
      const agents = await tx.agent.count({ where: { id: { in: unique }, workspaceId } });
      if (agents !== unique.length) return false;
      await tx.vaultGrant.deleteMany({ where: { accountId, agentId: { notIn: unique } } });
      await tx.vaultGrant.createMany({ data: unique.map((agentId) => ({ accountId, agentId })), skipDuplicates: true });
      return tx.vaultAccount.findUniqueOrThrow({ where: { id: accountId }, include: withGrants });
    });
  }

  async markUsed(accountId: string, at: Date): Promise<void> {
    await this.prisma.vaultAccount.updateMany({ where: { id: accountId }, data: { lastUsedAt: at } });
  }

  private async refusal(tx: Tx, account: NewVaultAccount, exceptId: string | null): Promise<VaultWriteRefusal | null> {
    if (await this.duplicate(tx, account, exceptId)) return 'duplicate';
    const count = await tx.vaultAccount.count({ where: { workspaceId: account.workspaceId, agentId: account.agentId } });
    return count >= VAULT_ACCOUNTS_MAX ? 'full' : null;
  }

  /** The unique index covers agents' accounts; shared ones (no agent) are checked here, under the workspace lock. */
  private async duplicate(
    tx: Tx,
    account: { workspaceId: string; agentId: string | null; site: string; username: string },
    exceptId: string | null,
  ): Promise<boolean> {
    const found = await tx.vaultAccount.findFirst({
      where: {
        workspaceId: account.workspaceId,
        agentId: account.agentId,
        site: account.site,
        username: account.username,
        ...(exceptId ? { id: { not: exceptId } } : {}),
      },
      select: { id: true },
    });
    return found !== null;
  }
}

function key(account: { site: string; username: string }): string {
  return `${account.site}\u0000${account.username}`;
}
