import { Inject, Injectable, Logger } from '@nestjs/common';
import type { VaultResealReport } from '@lazyboy/contracts';
import { API_CONFIG, type ApiConfig } from '../config/api-config.js';
import { AuditService } from '../audit/audit.service.js';
import { SecretBox, SecretBoxError, vaultKeyRingOf } from './secret-box.js';
import { SEALED_COLUMNS, SealedColumnsRepository, type SealedColumn } from './sealed-columns.repository.js';

const PAGE = 200;

/**
 * Re-seals every stored secret under the current vault key, so an old key can be retired. The API opens
 * secrets of any key of its ring (LAZYBOY_VAULT_KEY and LAZYBOY_VAULT_OLD_KEYS) all along, so nothing
 * becomes unreadable while this runs; each cell is replaced only if nobody changed it since it was read.
 */
@Injectable()
export class KeyRotation {
  private readonly logger = new Logger('KeyRotation');
  private running: Promise<VaultResealReport> | null = null;

  constructor(
    @Inject(API_CONFIG) private readonly config: ApiConfig,
    private readonly cells: SealedColumnsRepository,
    private readonly audit: AuditService,
  ) {}

  /** One re-seal at a time per replica: a second call waits for the one under way. */
  reseal(actorUserId: string | null): Promise<VaultResealReport> {
    this.running ??= this.resealAll(actorUserId).finally(() => (this.running = null));
    return this.running;
  }

  private async resealAll(actorUserId: string | null): Promise<VaultResealReport> {
    const report: VaultResealReport = {
      resealed: 0,
      current: 0,
      unreadable: 0,
      oldKeys: this.config.LAZYBOY_VAULT_OLD_KEYS.length,
    };
    for (const column of SEALED_COLUMNS) await this.resealColumn(column, report);
    this.logger.log(`re-sealed ${report.resealed} secrets (${report.current} were current, ${report.unreadable} unreadable)`);
    await this.audit.record({ actorUserId, action: 'vault.key_reseal', targetType: 'instance', details: { ...report } });
    return report;
  }

  private async resealColumn(column: SealedColumn, report: VaultResealReport): Promise<void> {
    const box = new SecretBox(vaultKeyRingOf(this.config), column.purpose);
    let after: string | null = null;
    for (;;) {
      const page = await this.cells.page(column, after, PAGE);
      for (const cell of page) {
        if (box.isCurrent(cell.cipher)) {
          report.current++;
          continue;
        }
        let plaintext: string;
        try {
          plaintext = box.open(cell.cipher);
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          // Sealed with a key this server was not given: left as it is, for an operator who still has it.
          report.unreadable++;
          continue;
        }
        // Changed since it was read: the new cipher was sealed under the current key already.
        if (await this.cells.replace(column, cell.id, cell.cipher, box.seal(plaintext))) report.resealed++;
        else report.current++;
      }
      const last = page.at(-1);
      if (!last || page.length < PAGE) return;
      after = last.id;
    }
  }
}
