import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { emptyCheckpoint } from '@lazyboy/agent';
import type { Agent, Chat, User } from '../persistence/generated/client.js';
import { violatesUniqueIndex } from '../persistence/prisma-errors.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { makeAgent, makeChat, makeRun, makeUser, makeWorkspace } from '../testing/factories.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../testing/test-database.js';
import { testApiConfig } from '../testing/test-config.js';
import { RunCreationRepository } from './run-creation.repository.js';
import { StaleLeaseError, type RunLease } from './run-lease.js';
import { RunMessagesRepository } from './run-messages.repository.js';
import type { StoredRunState } from './run-state.js';
import { ONE_EXECUTING_RUN_PER_AGENT, RunsRepository } from './runs.repository.js';

// The queue's SQL against the real Postgres: no executor, no model; each case builds its rows with the
// factories and calls the repositories the executors and the accept path call. A database of its own:
// claimNext leases whatever is queued, other suites' runs included.

const LEASE_MS = 60_000;
const STATE: StoredRunState = { agent: { ...emptyCheckpoint(), roundsUsed: 2 } };
const at = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1_000);

describe('RunsRepository: the queue on the real database', () => {
  let database: IsolatedDatabase;
  let prisma: PrismaService;
  let runs: RunsRepository;
  let user: User;

  beforeAll(async () => {
    database = await createIsolatedDatabase();
    prisma = new PrismaService(testApiConfig({ DATABASE_URL: database.url }));
    runs = new RunsRepository(prisma);
    user = await makeUser(prisma);
  }, 30_000);

  afterEach(async () => {
    await prisma.run.deleteMany();
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  /** An agent of a new workspace with `chats` chats. */
  async function agentWithChats(chats = 1): Promise<{ agent: Agent; chats: Chat[] }> {
    const workspace = await makeWorkspace(prisma, { owner: user });
    const agent = await makeAgent(prisma, workspace);
    return { agent, chats: await Promise.all(Array.from({ length: chats }, () => makeChat(prisma, agent))) };
  }

  const leaseOf = async (runId: string): Promise<RunLease> => {
    const row = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
    return { runId, fence: row.leaseFence };
  };

  it('leases per agent in arrival order, one run per agent, and none behind a parked run', async () => {
    const ada = await agentWithChats(3);
    const bob = await agentWithChats(1);
    const t0 = new Date(Date.now() - 60_000);
    const [a1, a2, a3] = [
      await makeRun(prisma, ada.chats[0]!, { createdAt: at(t0, 0) }),
      await makeRun(prisma, ada.chats[1]!, { createdAt: at(t0, 1) }),
      await makeRun(prisma, ada.chats[2]!, { createdAt: at(t0, 2) }),
    ];
    const b1 = await makeRun(prisma, bob.chats[0]!, { createdAt: at(t0, 0.5) });

    // Room for ten: the oldest of each agent, the others wait behind it.
    expect((await runs.claimNext('replica-a', LEASE_MS, 10)).sort()).toEqual([a1.id, b1.id].sort());
    expect(await runs.claimNext('replica-a', LEASE_MS, 10)).toEqual([]);

    await runs.finish(await leaseOf(a1.id), { status: 'completed', result: { text: 'done' } });
    expect(await runs.claimNext('replica-b', LEASE_MS, 10)).toEqual([a2.id]);

    // a2 parks on a question: it still holds the agent, so a3 (another chat) waits.
    await runs.park(await leaseOf(a2.id), 'waiting_input', STATE, { text: 'Which size?' });
    expect(await runs.claimNext('replica-b', LEASE_MS, 10)).toEqual([]);
    // A person dismisses the parked run: a3 goes ahead.
    expect(await runs.requestCancel(a2.id)).toMatchObject({ changed: true, run: { status: 'cancelled' } });
    expect(await runs.claimNext('replica-b', LEASE_MS, 10)).toEqual([a3.id]);
  });

  it('gives an agent to exactly one of many executors claiming at once', async () => {
    const ada = await agentWithChats(4);
    for (const [i, chat] of ada.chats.entries()) await makeRun(prisma, chat, { createdAt: at(new Date(), i - 10) });
    // Three replicas, each with its own connections, claiming four at a time.
    const replicas = [prisma, ...[1, 2].map(() => new PrismaService(testApiConfig({ DATABASE_URL: database.url })))];
    try {
      const attempts = replicas.flatMap((db, r) =>
        Array.from({ length: 4 }, (_, i) =>
          new RunsRepository(db).claimNext(`replica-${r}:${i}`, LEASE_MS, 1).then(
            (ids) => ({ ids, lost: false }),
            (error: unknown) => {
              // The partial unique index refusing a second active run is a lost race too: nothing was leased.
              if (violatesUniqueIndex(error, ONE_EXECUTING_RUN_PER_AGENT)) return { ids: [] as string[], lost: true };
              throw error;
            },
          ),
        ),
      );
      const results = await Promise.all(attempts);
      expect(results.flatMap((r) => r.ids)).toHaveLength(1);
      const rows = await prisma.run.findMany({ where: { agentId: ada.agent.id }, orderBy: { createdAt: 'asc' } });
      expect(rows.map((r) => r.status)).toEqual(['leased', 'queued', 'queued', 'queued']);
      expect(rows[0]!.leaseFence).toBe(1n);
    } finally {
      await Promise.all(replicas.slice(1).map((db) => db.$disconnect()));
    }
  });

  it('leases at most one new run of an idle agent when messages to several of its chats arrive at once', async () => {
    const ada = await agentWithChats(6);
    const creation = new RunCreationRepository(prisma, runs);
    const created = await Promise.all(
      ada.chats.map((chat, i) =>
        creation.fromMessage(
          { kind: 'message', chat: chat, authorUserId: user.id, text: `task ${i}`, clientNonce: `race-${chat.id}` },
          'general',
          { owner: `slot-${i}`, leaseMs: LEASE_MS },
        ),
      ),
    );
    expect(created.map((c) => c.run.status).sort()).toEqual(['leased', 'queued', 'queued', 'queued', 'queued', 'queued']);
    expect(created.every((c) => c.message.runId === c.run.id && !c.replayed)).toBe(true);
    expect(await prisma.message.count({ where: { chat: { agentId: ada.agent.id } } })).toBe(6);
    // And the same message again (a retry) is the same run: nothing is written twice.
    const first = created[0]!;
    const again = await creation.fromMessage(
      { kind: 'message', chat: ada.chats[0]!, authorUserId: user.id, text: 'task 0', clientNonce: `race-${ada.chats[0]!.id}` },
      'general',
    );
    expect(again).toMatchObject({ replayed: true, run: { id: first.run.id }, message: { id: first.message.id } });
    expect(await prisma.run.count({ where: { agentId: ada.agent.id } })).toBe(6);
  });

  it('refuses a stale fence’s finish, park and progress, and resumes a parked run once', async () => {
    const ada = await agentWithChats();
    const run = await makeRun(prisma, ada.chats[0]!);
    expect(await runs.claimNext('replica-a', LEASE_MS)).toEqual([run.id]);
    const lease = await leaseOf(run.id);
    const stale: RunLease = { runId: run.id, fence: lease.fence - 1n };
    const before = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });

    await expect(runs.finish(stale, { status: 'completed', result: { text: 'no' } })).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.park(stale, 'waiting_input', STATE, { text: 'no' })).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.setRunning(stale, { kind: 'thinking' }, LEASE_MS)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.saveState(stale, STATE, LEASE_MS)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.requeue(stale)).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).toEqual(before);

    // The holder parks it; the lease is gone with the executor, so even its own fence writes nothing now.
    await runs.park(lease, 'waiting_input', STATE, { text: 'Which size?' });
    await expect(runs.finish(lease, { status: 'completed' })).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await runs.resume(run.id, 'waiting_takeover', { kind: 'resumed' })).toBeNull();

    // Two answers at once: one resumes the run, the other finds it no longer parked.
    const answers = await Promise.all(
      ['large', 'small'].map((text) => runs.resume(run.id, 'waiting_input', { kind: 'answer', text })),
    );
    expect(answers.filter((r) => r !== null)).toHaveLength(1);
    const resumed = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(resumed).toMatchObject({ status: 'queued', parkedAt: null, leaseOwner: null });
    const winner = answers.find((r) => r !== null)!;
    expect((resumed.checkpoint as unknown as StoredRunState).answer).toEqual(
      (winner.checkpoint as unknown as StoredRunState).answer,
    );
    expect([
      { kind: 'answer', text: 'large' },
      { kind: 'answer', text: 'small' },
    ]).toContainEqual((resumed.checkpoint as unknown as StoredRunState).answer);

    // Leased again with a higher fence: the first lease stays refused.
    expect(await runs.claimNext('replica-b', LEASE_MS)).toEqual([run.id]);
    expect((await leaseOf(run.id)).fence).toBe(lease.fence + 1n);
    await expect(runs.finish(lease, { status: 'failed' })).rejects.toBeInstanceOf(StaleLeaseError);
    await runs.finish(await leaseOf(run.id), { status: 'completed', result: { text: 'Large it is' } });
    expect(await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'completed' });
    // Over: a stop changes nothing.
    expect(await runs.requestCancel(run.id)).toMatchObject({ changed: false, run: { status: 'completed' } });
  });

  it('lets another executor take a run whose lease expired, and refuses every write of the old holder', async () => {
    const ada = await agentWithChats();
    const messages = new RunMessagesRepository(prisma);
    const run = await makeRun(prisma, ada.chats[0]!);
    // A lease that expired as it was taken: its executor died (no clock to wait for).
    expect(await runs.claimNext('dead-replica', -1_000)).toEqual([run.id]);
    const old = await leaseOf(run.id);
    const context = await runs.executionContext(run.id);

    expect(await runs.claimNext('replica-b', LEASE_MS)).toEqual([run.id]);
    const taken = await prisma.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(taken).toMatchObject({ status: 'leased', leaseOwner: 'replica-b', leaseFence: old.fence + 1n });
    // Not expired any more: nobody else takes it.
    expect(await runs.claimNext('replica-c', LEASE_MS)).toEqual([]);

    expect(await runs.renew(old, LEASE_MS)).toEqual({ held: false, cancelRequested: false });
    await expect(runs.setRunning(old, { kind: 'thinking' }, LEASE_MS)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.saveState(old, STATE, LEASE_MS)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.appendEvents(old, run.workspaceId, [{ seq: 1, type: 'x', payload: {} }])).rejects.toBeInstanceOf(
      StaleLeaseError,
    );
    await expect(messages.write(old, context!, 'late answer', false)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.finish(old, { status: 'failed' })).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(runs.requeue(old)).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await prisma.run.findUniqueOrThrow({ where: { id: run.id } })).toEqual(taken);
    expect(await prisma.runEvent.count({ where: { runId: run.id } })).toBe(0);
    expect(await prisma.message.count({ where: { runId: run.id } })).toBe(0);

    // The new holder's writes go through.
    const current = await leaseOf(run.id);
    await messages.write(current, context!, 'the answer', false);
    await runs.finish(current, { status: 'completed', result: { text: 'the answer' } });
    expect(await prisma.message.count({ where: { runId: run.id } })).toBe(1);
  });
});
