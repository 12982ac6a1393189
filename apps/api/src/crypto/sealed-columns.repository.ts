import { Injectable } from '@nestjs/common';
import { Prisma } from '../persistence/generated/client.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { COMPUTER_TOKEN_PURPOSE, MODEL_KEYS_PURPOSE, VAULT_ACCOUNTS_PURPOSE } from './purposes.js';

/** Every column that holds a SecretBox cipher, with the purpose it was sealed for: what a key rotation re-seals. */
export const SEALED_COLUMNS = [
  { table: 'Agent', column: 'modelApiKeyCipher', purpose: MODEL_KEYS_PURPOSE },
  { table: 'Workspace', column: 'modelApiKeyCipher', purpose: MODEL_KEYS_PURPOSE },
  { table: 'Computer', column: 'controlTokenCipher', purpose: COMPUTER_TOKEN_PURPOSE },
  { table: 'VaultAccount', column: 'secretCipher', purpose: VAULT_ACCOUNTS_PURPOSE },
] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

export interface SealedCell {
  id: string;
  cipher: Uint8Array;
}

/**
 * The sealed columns, read a page at a time and replaced one cell at a time. Table and column names come
 * from SEALED_COLUMNS only, never from input.
 */
@Injectable()
export class SealedColumnsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async page(column: SealedColumn, afterId: string | null, take: number): Promise<SealedCell[]> {
    const table = Prisma.raw(`"${column.table}"`);
    const cell = Prisma.raw(`"${column.column}"`);
    const after = afterId === null ? Prisma.empty : Prisma.sql`AND "id" > ${afterId}::uuid`;
    return this.prisma.$queryRaw<SealedCell[]>`
      SELECT "id"::text AS "id", ${cell} AS "cipher" FROM ${table}
      WHERE ${cell} IS NOT NULL ${after} ORDER BY "id" LIMIT ${take}`;
  }

  /** Replaces a cipher only if it is still the one read: a person's edit in between wins. */
  async replace(column: SealedColumn, id: string, from: Uint8Array, to: Uint8Array): Promise<boolean> {
    const table = Prisma.raw(`"${column.table}"`);
    const cell = Prisma.raw(`"${column.column}"`);
    const changed = await this.prisma.$executeRaw`
      UPDATE ${table} SET ${cell} = ${Buffer.from(to)} WHERE "id" = ${id}::uuid AND ${cell} = ${Buffer.from(from)}`;
    return changed > 0;
  }
}
