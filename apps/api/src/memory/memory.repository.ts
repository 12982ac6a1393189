import { Injectable } from '@nestjs/common';
import { MEMORY_VECTOR_DIMENSIONS, type MemorySource } from '@lazyboy/contracts';
import { PrismaService } from '../persistence/prisma.service.js';

export interface NewMemoryItem {
  workspaceId: string;
  agentId: string | null;
  content: string;
  source: MemorySource;
  embedderId: string;
  embedding: readonly number[];
}

export interface SimilarMemory {
  id: string;
  content: string;
  source: MemorySource;
  createdAt: Date;
  /** Cosine similarity to the query, 1 = same direction. */
  similarity: number;
}

export interface MemoryQuery {
  workspaceId: string;
  /** The agent asking: its own memories plus the workspace's shared ones (agentId null). */
  agentId: string;
  embedderId: string;
  embedding: readonly number[];
  limit: number;
}

export class InvalidEmbeddingError extends Error {
  override readonly name = 'InvalidEmbeddingError';
}

/**
 * Long-term memory rows and their pgvector search. Vectors are compared by cosine distance (<=>) and
 * only within one embedder, since vectors of different embedders share no space.
 */
@Injectable()
export class MemoryRepository {
  constructor(private readonly prisma: PrismaService) {}

  async add(item: NewMemoryItem): Promise<string> {
    const vector = toVectorLiteral(item.embedding);
    const rows = await this.prisma.$queryRaw<Array<{ id: string }>>`
      INSERT INTO "MemoryItem" ("id", "workspaceId", "agentId", "content", "source", "embedderId", "embedding")
      VALUES (gen_random_uuid(), ${item.workspaceId}::uuid, ${item.agentId}::uuid, ${item.content},
              ${item.source}::"MemorySource", ${item.embedderId}, ${vector}::vector)
      RETURNING "id"`;
    const id = rows[0]?.id;
    if (!id) throw new Error('memory insert returned no id');
    return id;
  }

  async searchSimilar(query: MemoryQuery): Promise<SimilarMemory[]> {
    const vector = toVectorLiteral(query.embedding);
    const rows = await this.prisma.$queryRaw<Array<Omit<SimilarMemory, 'similarity'> & { distance: number }>>`
      SELECT "id", "content", "source"::text AS "source", "createdAt", ("embedding" <=> ${vector}::vector) AS "distance"
      FROM "MemoryItem"
      WHERE "workspaceId" = ${query.workspaceId}::uuid
        AND ("agentId" = ${query.agentId}::uuid OR "agentId" IS NULL)
        AND "embedderId" = ${query.embedderId}
      ORDER BY "embedding" <=> ${vector}::vector
      LIMIT ${query.limit}`;
    return rows.map(({ distance, ...row }) => ({ ...row, similarity: 1 - Number(distance) }));
  }
}

function toVectorLiteral(embedding: readonly number[]): string {
  if (embedding.length !== MEMORY_VECTOR_DIMENSIONS) {
    throw new InvalidEmbeddingError(`embedding has ${embedding.length} dimensions, expected ${MEMORY_VECTOR_DIMENSIONS}`);
  }
  if (!embedding.every(Number.isFinite)) throw new InvalidEmbeddingError('embedding holds a non-finite number');
  return `[${embedding.join(',')}]`;
}
