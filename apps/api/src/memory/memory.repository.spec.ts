import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { MEMORY_VECTOR_DIMENSIONS } from '@lazyboy/contracts';
import { PrismaService } from '../persistence/prisma.service.js';
import { testApiConfig } from '../testing/test-config.js';
import { InvalidEmbeddingError, MemoryRepository } from './memory.repository.js';

/** A unit vector mixing the given axes equally. */
function direction(...axes: number[]): number[] {
  const v = new Array<number>(MEMORY_VECTOR_DIMENSIONS).fill(0);
  for (const axis of axes) v[axis] = 1 / Math.sqrt(axes.length);
  return v;
}

describe('MemoryRepository (pgvector on the real database)', () => {
  const prisma = new PrismaService(testApiConfig());
  const memories = new MemoryRepository(prisma);
  let workspaceId: string;
  let agentId: string;
  let otherAgentId: string;

  beforeAll(async () => {
    const workspace = await prisma.workspace.create({ data: { name: 'Memory', slug: `memory-${randomUUID()}` } });
    workspaceId = workspace.id;
    const [agent, other] = await Promise.all([
      prisma.agent.create({ data: { workspaceId, name: 'Ada', avatarSeed: 'ada' } }),
      prisma.agent.create({ data: { workspaceId, name: 'Bob', avatarSeed: 'bob' } }),
    ]);
    agentId = agent.id;
    otherAgentId = other.id;
  });

  afterAll(async () => {
    await prisma.workspace.delete({ where: { id: workspaceId } });
    await prisma.$disconnect();
  });

  it('returns the nearest memories by cosine similarity, scoped to the agent, its workspace and the embedder', async () => {
    const base = { workspaceId, source: 'user' as const, embedderId: 'hash-384-v1' };
    await memories.add({ ...base, agentId, content: 'The office wifi password is kept in the vault', embedding: direction(0) });
    await memories.add({ ...base, agentId, content: 'Weekly report goes out on Fridays', embedding: direction(0, 1) });
    await memories.add({ ...base, agentId, content: 'Favourite colour is green', embedding: direction(2) });
    await memories.add({ ...base, agentId: null, content: 'Team standup at 09:30', embedding: direction(0, 1, 2, 3) });
    // Near the query too, but not this agent's, not this embedder's, or not this workspace's.
    await memories.add({ ...base, agentId: otherAgentId, content: "Bob's note", embedding: direction(0) });
    await memories.add({ ...base, agentId, embedderId: 'minilm-l6-v2', content: 'other embedder', embedding: direction(0) });
    const elsewhere = await prisma.workspace.create({ data: { name: 'Elsewhere', slug: `elsewhere-${randomUUID()}` } });
    await memories.add({ ...base, workspaceId: elsewhere.id, agentId: null, content: 'foreign', embedding: direction(0) });

    const found = await memories.searchSimilar({
      workspaceId,
      agentId,
      embedderId: 'hash-384-v1',
      embedding: direction(0),
      limit: 10,
    });

    expect(found.map((m) => m.content)).toEqual([
      'The office wifi password is kept in the vault',
      'Weekly report goes out on Fridays',
      'Team standup at 09:30',
      'Favourite colour is green',
    ]);
    expect(found.map((m) => Number(m.similarity.toFixed(3)))).toEqual([1, 0.707, 0.5, 0]);

    const top = await memories.searchSimilar({
      workspaceId,
      agentId,
      embedderId: 'hash-384-v1',
      embedding: direction(2),
      limit: 1,
    });
    expect(top.map((m) => m.content)).toEqual(['Favourite colour is green']);
    await prisma.workspace.delete({ where: { id: elsewhere.id } });
  });

  it('refuses vectors of the wrong size and stores nothing', async () => {
    const before = await prisma.memoryItem.count({ where: { workspaceId } });
    await expect(
      memories.add({ workspaceId, agentId, source: 'agent', embedderId: 'hash-384-v1', content: 'short', embedding: [1, 0, 0] }),
    ).rejects.toBeInstanceOf(InvalidEmbeddingError);
    expect(await prisma.memoryItem.count({ where: { workspaceId } })).toBe(before);
  });
});
