import { Injectable, Logger } from '@nestjs/common';
import type { OpenedLogin, RunVault, SavedAccount, VaultStep, VaultUse } from '../agent-tools/vault-tools.js';
import { AuditService } from '../audit/audit.service.js';
import { totpCode, totpCodesAround, totpSecretOf } from './totp.js';
import { VaultSecrets, VaultSecretUnreadableError, type SealedLogin } from './vault-secrets.js';
import { VaultRepository, type VaultAccountRow } from './vault.repository.js';

/** A code this close to its change is not typed: it would reach the site after it expired. */
const FRESH_CODE_SECONDS = 3;

export interface RunOfAgent {
  workspaceId: string;
  agentId: string;
  runId: string;
}

/** One run's vault, and what its redactor must hide. */
export interface RunVaultSession extends RunVault {
  /** Every secret of the agent's accounts, their one-time codes of now included. */
  secretsNow(): string[];
}

/**
 * The vault as runs use it. A run's session loads the secrets of every account its agent may use once,
 * so the run's redactor hides them from its first tool result on; a login opened later (an account saved
 * while the run goes on) is added then.
 */
@Injectable()
export class RunVaults {
  private readonly logger = new Logger('RunVaults');

  constructor(
    private readonly vault: VaultRepository,
    private readonly secrets: VaultSecrets,
    private readonly audit: AuditService,
  ) {}

  async forRun(run: RunOfAgent): Promise<RunVaultSession> {
    const known = new Map<string, SealedLogin>();
    for (const row of await this.vault.listUsable(run.workspaceId, run.agentId)) {
      const sealed = this.tryOpen(row);
      if (sealed) known.set(row.id, sealed);
    }
    const session: RunVaultSession = {
      accounts: async () => (await this.vault.listUsable(run.workspaceId, run.agentId)).map(listing),
      open: (accountId, step) => this.open(run, accountId, step, known),
      recordUse: (use) => this.recordUse(run, use),
      secretsNow: () => secretsOf(known.values()),
    };
    return session;
  }

  private async open(run: RunOfAgent, accountId: string, step: VaultStep, known: Map<string, SealedLogin>) {
    if (!/^[0-9a-f-]{36}$/i.test(accountId)) return 'no_account' as const;
    const row = await this.vault.findUsable(run.workspaceId, run.agentId, accountId);
    if (!row) return 'no_account' as const;
    const sealed = this.secrets.open(row.id, row.secretCipher);
    known.set(row.id, sealed);
    if (step === 'password') {
      return { step, site: row.site, username: row.username, password: sealed.password } satisfies OpenedLogin;
    }
    if (sealed.totp === null) return 'no_totp' as const;
    return { step, site: row.site, code: await freshCode(sealed.totp) } satisfies OpenedLogin;
  }

  private async recordUse(run: RunOfAgent, use: VaultUse): Promise<void> {
    const at = new Date();
    if (use.outcome === 'submitted') await this.vault.markUsed(use.accountId, at);
    await this.audit.record({
      workspaceId: run.workspaceId,
      action: 'vault.account_use',
      targetType: 'vault_account',
      targetId: use.accountId,
      details: {
        runId: run.runId,
        agentId: run.agentId,
        site: use.site,
        step: use.step,
        outcome: use.outcome,
        ...(use.pageSite === undefined ? {} : { pageSite: use.pageSite }),
      },
    });
  }

  private tryOpen(row: VaultAccountRow): SealedLogin | null {
    try {
      return this.secrets.open(row.id, row.secretCipher);
    } catch (error) {
      if (!(error instanceof VaultSecretUnreadableError)) throw error;
      this.logger.warn(error.message);
      return null;
    }
  }
}

function listing(row: VaultAccountRow): SavedAccount {
  return { id: row.id, site: row.site, username: row.username, hasTotp: row.hasTotp };
}

/** Passwords, TOTP secrets (base32 and the URI) and the codes a site would accept now. */
function secretsOf(logins: Iterable<SealedLogin>): string[] {
  const now = Date.now();
  const out: string[] = [];
  for (const login of logins) {
    out.push(login.password);
    if (login.totp !== null) out.push(login.totp, totpSecretOf(login.totp), ...totpCodesAround(login.totp, now));
  }
  return out;
}

/** The current code, or the next one when the current is about to change. */
async function freshCode(uri: string): Promise<string> {
  const now = totpCode(uri);
  if (now.expiresInSeconds > FRESH_CODE_SECONDS) return now.code;
  await new Promise((resolve) => setTimeout(resolve, now.expiresInSeconds * 1_000 + 100));
  return totpCode(uri).code;
}
