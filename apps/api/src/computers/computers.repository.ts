import { Injectable } from '@nestjs/common';
import type { ComputerMode } from '@lazyboy/contracts';
import type { Principal } from '../auth/principal.js';
import { PrismaService } from '../persistence/prisma.service.js';
import { Prisma, type Computer, type ComputerScreen, type ComputerState } from '../persistence/generated/client.js';
import { visibleWorkspaces } from '../tenancy/workspace-scope.js';

export type ComputerWithScreens = Computer & { screens: ComputerScreen[] };

export interface AgentRef {
  id: string;
  workspaceId: string;
  computerMode: ComputerMode;
}

/** Runs in these hold their agent's screen: its computer is busy while one exists. */
const BUSY_RUN_STATUSES = ['leased', 'running', 'waiting_takeover'] as const;

/** A new screen's display until its worker has said which one it is (set by ensureAgentScreen). */
const PENDING_DISPLAY = 0;

const withScreens = { screens: { orderBy: { slot: 'asc' } } } satisfies Prisma.ComputerInclude;

/** Computers, their screens and the leases on them. */
@Injectable()
export class ComputersRepository {
  constructor(private readonly prisma: PrismaService) {}

  // ------------------------------------------------------------------------------------------ agents

  /** The agent if the principal may see it (a foreign id finds nothing). */
  async visibleAgent(principal: Principal, agentId: string): Promise<AgentRef | null> {
    return this.prisma.agent.findFirst({
      where: { id: agentId, workspace: visibleWorkspaces(principal) },
      select: { id: true, workspaceId: true, computerMode: true },
    });
  }

  async agent(agentId: string): Promise<AgentRef | null> {
    return this.prisma.agent.findUnique({ where: { id: agentId }, select: { id: true, workspaceId: true, computerMode: true } });
  }

  // ------------------------------------------------------------------------------------- computers

  async computer(id: string): Promise<ComputerWithScreens | null> {
    return this.prisma.computer.findUnique({ where: { id }, include: withScreens });
  }

  async screensByIds(ids: string[]): Promise<ComputerScreen[]> {
    return this.prisma.computerScreen.findMany({ where: { id: { in: ids } } });
  }

  /** The computer the agent works on, if it exists yet: its private one, or its workspace's Team computer. */
  async computerForAgent(agent: AgentRef): Promise<ComputerWithScreens | null> {
    if (agent.computerMode === 'private') {
      return this.prisma.computer.findUnique({ where: { agentId: agent.id }, include: withScreens });
    }
    return this.prisma.computer.findFirst({
      where: { workspaceId: agent.workspaceId, kind: 'team' },
      orderBy: { createdAt: 'asc' },
      include: withScreens,
    });
  }

  /**
   * The agent's computer, created (stopped) when missing. Nothing in the schema makes the Team computer
   * unique per workspace, so creators serialise on an advisory lock named after the workspace.
   */
  async ensureComputerForAgent(agent: AgentRef): Promise<ComputerWithScreens> {
    const existing = await this.computerForAgent(agent);
    if (existing) return existing;
    const lockName = agent.computerMode === 'private' ? `computer:agent:${agent.id}` : `computer:team:${agent.workspaceId}`;
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lockName}, 0))`;
      const again =
        agent.computerMode === 'private'
          ? await tx.computer.findUnique({ where: { agentId: agent.id }, include: withScreens })
          : await tx.computer.findFirst({ where: { workspaceId: agent.workspaceId, kind: 'team' }, include: withScreens });
      if (again) return again;
      return tx.computer.create({
        data:
          agent.computerMode === 'private'
            ? { workspaceId: agent.workspaceId, kind: 'private', agentId: agent.id, homeKey: `agent-${agent.id}` }
            : { workspaceId: agent.workspaceId, kind: 'team', homeKey: `team-${agent.workspaceId}` },
        include: withScreens,
      });
    });
  }

  async workspaceComputers(workspaceId: string): Promise<ComputerWithScreens[]> {
    return this.prisma.computer.findMany({ where: { workspaceId }, orderBy: { createdAt: 'asc' }, include: withScreens });
  }

  /**
   * Claims the right to boot: only one caller (in any replica) moves a stopped or failed computer, or a
   * booting one whose boot lease lapsed at `now` (its API died), to booting, with a binding lease until
   * `expiresAt`. Returns the boot's bind fence (only that boot may finish it), or null when someone else is
   * booting it or it already runs.
   */
  async claimBoot(id: string, now: Date, expiresAt: Date): Promise<bigint | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.computer.updateMany({
        where: { id, OR: [{ state: { in: ['stopped', 'error'] } }, { state: 'booting', ...lapsed(now) }] },
        data: { state: 'booting', errorMessage: null, bindFence: { increment: 1 }, bindExpiresAt: expiresAt },
      });
      if (count !== 1) return null;
      // Same transaction: the row stays locked by the update, so this is the fence it wrote.
      const claimed = await tx.computer.findUniqueOrThrow({ where: { id }, select: { bindFence: true } });
      return claimed.bindFence;
    });
  }

  /** Finishes the boot holding `fence`, its lease until `expiresAt`; false when it was stopped or taken over meanwhile. */
  async markRunning(
    id: string,
    fence: bigint,
    binding: { endpoint: string; tokenCipher: Uint8Array<ArrayBuffer>; owner: string },
    expiresAt: Date,
  ): Promise<boolean> {
    const now = new Date();
    const { count } = await this.prisma.computer.updateMany({
      where: { id, state: 'booting', bindFence: fence },
      data: {
        state: 'running',
        endpoint: binding.endpoint,
        controlTokenCipher: binding.tokenCipher,
        bindOwner: binding.owner,
        bindExpiresAt: expiresAt,
        bootedAt: now,
        lastActiveAt: now,
        suspendedAt: null,
        stoppedAt: null,
        errorMessage: null,
      },
    });
    return count === 1;
  }

  /** Fails the boot holding `fence`; false when it was stopped or taken over meanwhile. */
  async markError(id: string, fence: bigint, message: string): Promise<boolean> {
    const { count } = await this.prisma.computer.updateMany({
      where: { id, state: 'booting', bindFence: fence },
      data: {
        state: 'error',
        errorMessage: message.slice(0, 2_000),
        endpoint: null,
        controlTokenCipher: null,
        bindOwner: null,
        bindExpiresAt: null,
      },
    });
    return count === 1;
  }

  /**
   * Renews the binding leases this process holds (computer id → its bind fence) until `expiresAt`. Returns
   * the ids whose binding it no longer holds (stopped, or taken over by another replica).
   */
  async renewBindings(held: ReadonlyMap<string, bigint>, expiresAt: Date): Promise<string[]> {
    if (held.size === 0) return [];
    const rows = await this.prisma.$transaction(
      [...held].map(([id, bindFence]) =>
        this.prisma.computer.updateMany({
          where: { id, bindFence, state: { in: ['booting', 'running', 'suspended'] } },
          data: { bindExpiresAt: expiresAt },
        }),
      ),
    );
    return [...held.keys()].filter((_, i) => rows[i]!.count !== 1);
  }

  /**
   * Takes over the binding seen with `seenFence` once its lease has lapsed at `now` (its binder stopped
   * renewing it): fence + 1, a lease of our own until `expiresAt`. Only one replica wins; the others get null.
   */
  async takeOverBinding(id: string, seenFence: bigint, now: Date, expiresAt: Date): Promise<bigint | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.computer.updateMany({
        where: { id, bindFence: seenFence, state: { in: ['running', 'suspended'] }, ...lapsed(now) },
        data: { bindFence: { increment: 1 }, bindExpiresAt: expiresAt },
      });
      if (count !== 1) return null;
      return (await tx.computer.findUniqueOrThrow({ where: { id }, select: { bindFence: true } })).bindFence;
    });
  }

  /** Suspends only from running, and (for the idle loop) only if still idle by `idleBefore`. */
  async markSuspended(id: string, idleBefore?: Date): Promise<boolean> {
    const idle: Prisma.ComputerWhereInput = idleBefore
      ? {
          AND: [
            { OR: [{ lastViewedAt: null }, { lastViewedAt: { lt: idleBefore } }] },
            { OR: [{ lastActiveAt: null }, { lastActiveAt: { lt: idleBefore } }] },
          ],
        }
      : {};
    const { count } = await this.prisma.computer.updateMany({
      where: { id, state: 'running', ...idle },
      data: { state: 'suspended', suspendedAt: new Date() },
    });
    return count === 1;
  }

  async markAwake(id: string): Promise<void> {
    await this.prisma.computer.updateMany({
      where: { id, state: 'suspended' },
      data: { state: 'running', suspendedAt: null, lastActiveAt: new Date() },
    });
  }

  /**
   * With `seen`, only if the computer is still as it was seen (nobody booted, woke or suspended it
   * meanwhile; without a state: any state but stopped, of that binding). True when it was marked.
   */
  async markStopped(
    id: string,
    errorMessage: string | null = null,
    seen?: { state?: ComputerState; bindFence: bigint },
  ): Promise<boolean> {
    const state = seen?.state ?? (seen ? { not: 'stopped' as const } : undefined);
    const { count } = await this.prisma.computer.updateMany({
      where: { id, ...(seen ? { bindFence: seen.bindFence } : {}), ...(state ? { state } : {}) },
      data: {
        state: 'stopped',
        endpoint: null,
        controlTokenCipher: null,
        bindOwner: null,
        bindExpiresAt: null,
        stoppedAt: new Date(),
        suspendedAt: null,
        memoryBytes: null,
        errorMessage,
      },
    });
    return count === 1;
  }

  async touchActive(id: string): Promise<void> {
    await this.prisma.computer.update({ where: { id }, data: { lastActiveAt: new Date() } });
  }

  async touchViewed(id: string, at = new Date()): Promise<void> {
    await this.prisma.computer.update({ where: { id }, data: { lastViewedAt: at } });
  }

  // ------------------------------------------------------------------------------------ idle loop

  /** Running computers nobody has watched or used since `idleBefore`. */
  async idleRunning(idleBefore: Date): Promise<ComputerWithScreens[]> {
    return this.prisma.computer.findMany({
      where: {
        state: 'running',
        OR: [{ lastViewedAt: null }, { lastViewedAt: { lt: idleBefore } }],
        AND: [{ OR: [{ lastActiveAt: null }, { lastActiveAt: { lt: idleBefore } }] }],
      },
      include: withScreens,
    });
  }

  /** True when a run of one of the computer's agents holds (or is about to hold) its screen. */
  async hasBusyRun(computer: ComputerWithScreens): Promise<boolean> {
    const agentIds = [
      ...new Set([
        ...computer.screens.flatMap((s) => (s.agentId ? [s.agentId] : [])),
        ...(computer.agentId ? [computer.agentId] : []),
      ]),
    ];
    const runIds = computer.screens.flatMap((s) => (s.executionRunId ? [s.executionRunId] : []));
    if (agentIds.length === 0 && runIds.length === 0) return false;
    const busy = await this.prisma.run.count({
      where: { status: { in: [...BUSY_RUN_STATUSES] }, OR: [{ agentId: { in: agentIds } }, { id: { in: runIds } }] },
    });
    return busy > 0;
  }

  async suspendedSince(before: Date): Promise<ComputerWithScreens[]> {
    return this.prisma.computer.findMany({ where: { state: 'suspended', suspendedAt: { lt: before } }, include: withScreens });
  }

  /** Computers that claim a worker (running or suspended), plus boots whose lease lapsed at `now` (their API died). */
  async bound(now: Date): Promise<ComputerWithScreens[]> {
    return this.prisma.computer.findMany({
      where: { OR: [{ state: { in: ['running', 'suspended'] } }, { state: 'booting', ...lapsed(now) }] },
      include: withScreens,
    });
  }

  // --------------------------------------------------------------------------------------- screens

  /**
   * The agent's screen on the computer, allocated on first use at the lowest free slot below `limit`.
   * When every slot is taken, the screen of an agent that is idle (no run holds it, nobody has control)
   * is handed over; `evicted` names it so the caller can stop its display first. Serialised per computer.
   */
  async ensureScreen(
    computerId: string,
    agentId: string,
    limit: number,
  ): Promise<{ screen: ComputerScreen; evicted?: { slot: number; agentId: string | null } } | null> {
    const existing = await this.prisma.computerScreen.findUnique({ where: { computerId_agentId: { computerId, agentId } } });
    if (existing) return { screen: existing };
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`screens:${computerId}`}, 0))`;
      const again = await tx.computerScreen.findUnique({ where: { computerId_agentId: { computerId, agentId } } });
      if (again) return { screen: again };
      const screens = await tx.computerScreen.findMany({ where: { computerId }, orderBy: { slot: 'asc' } });
      const used = new Set(screens.map((s) => s.slot));
      for (let slot = 0; slot < limit; slot += 1) {
        if (used.has(slot)) continue;
        return { screen: await tx.computerScreen.create({ data: { computerId, agentId, slot, display: PENDING_DISPLAY } }) };
      }
      const runIds = screens.flatMap((s) => (s.executionRunId ? [s.executionRunId] : []));
      const busyRuns = new Set(
        (
          await tx.run.findMany({ where: { id: { in: runIds }, status: { in: [...BUSY_RUN_STATUSES] } }, select: { id: true } })
        ).map((r) => r.id),
      );
      const busyAgents = new Set(
        (
          await tx.run.findMany({
            where: {
              agentId: { in: screens.flatMap((s) => (s.agentId ? [s.agentId] : [])) },
              status: { in: [...BUSY_RUN_STATUSES] },
            },
            select: { agentId: true },
          })
        ).map((r) => r.agentId),
      );
      const victim = screens
        .filter((s) => s.slot < limit && s.controlHolder === 'agent')
        .filter((s) => !(s.executionRunId && busyRuns.has(s.executionRunId)) && !(s.agentId && busyAgents.has(s.agentId)))
        .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime())[0];
      if (!victim) return null;
      const screen = await tx.computerScreen.update({
        where: { id: victim.id },
        data: { agentId, executionRunId: null, controlUserId: null, controlExpiresAt: null },
      });
      return { screen, evicted: { slot: victim.slot, agentId: victim.agentId } };
    });
  }

  /** The display the worker really gave the screen (its display base + slot + 1). */
  async setDisplay(screenId: string, display: number): Promise<ComputerScreen> {
    return this.prisma.computerScreen.update({ where: { id: screenId }, data: { display } });
  }

  /** The run's execution lease: fence + 1 atomically, so every older holder is superseded. */
  async takeExecution(screenId: string, runId: string): Promise<ComputerScreen> {
    return this.prisma.computerScreen.update({
      where: { id: screenId },
      data: { executionFence: { increment: 1 }, executionRunId: runId },
    });
  }

  async releaseExecution(runId: string): Promise<string[]> {
    const screens = await this.prisma.computerScreen.findMany({ where: { executionRunId: runId }, select: { computerId: true } });
    await this.prisma.computerScreen.updateMany({ where: { executionRunId: runId }, data: { executionRunId: null } });
    return screens.map((s) => s.computerId);
  }

  // --------------------------------------------------------------------------------------- control

  /**
   * Gives a person control (fence + 1) unless another person holds it: from the agent, from themselves
   * (taking it again), or from a lease that ran out. Null when someone else holds it.
   */
  async takeControl(screenId: string, userId: string, expiresAt: Date, now: Date): Promise<ComputerScreen | null> {
    const { count } = await this.prisma.computerScreen.updateMany({
      where: {
        id: screenId,
        OR: [{ controlHolder: 'agent' }, { controlUserId: userId }, { controlExpiresAt: { lt: now } }],
      },
      data: { controlHolder: 'user', controlUserId: userId, controlExpiresAt: expiresAt, controlFence: { increment: 1 } },
    });
    return count === 1 ? this.prisma.computerScreen.findUnique({ where: { id: screenId } }) : null;
  }

  /** Extends a person's control; null when they no longer hold it. */
  async renewControl(screenId: string, userId: string, expiresAt: Date): Promise<ComputerScreen | null> {
    const { count } = await this.prisma.computerScreen.updateMany({
      where: { id: screenId, controlHolder: 'user', controlUserId: userId },
      data: { controlExpiresAt: expiresAt },
    });
    return count === 1 ? this.prisma.computerScreen.findUnique({ where: { id: screenId } }) : null;
  }

  /**
   * Hands control back to the agent (fence + 1) if `userId` holds it (any person when null, for expiry
   * and admin release; `expiredBefore` limits it to leases that ran out). Null when nothing changed.
   */
  async releaseControl(screenId: string, userId: string | null, expiredBefore?: Date): Promise<ComputerScreen | null> {
    try {
      return await this.prisma.computerScreen.update({
        where: {
          id: screenId,
          controlHolder: 'user',
          ...(userId ? { controlUserId: userId } : {}),
          ...(expiredBefore ? { controlExpiresAt: { lt: expiredBefore } } : {}),
        },
        data: { controlHolder: 'agent', controlUserId: null, controlExpiresAt: null, controlFence: { increment: 1 } },
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return null;
      throw error;
    }
  }

  async expiredControl(now: Date): Promise<Array<ComputerScreen & { computer: Computer }>> {
    return this.prisma.computerScreen.findMany({
      where: { controlHolder: 'user', controlExpiresAt: { lt: now } },
      include: { computer: true },
    });
  }
}

/** A binding lease that ran out by `now` (or was never written, by a version before leases). */
function lapsed(now: Date): Prisma.ComputerWhereInput {
  return { OR: [{ bindExpiresAt: null }, { bindExpiresAt: { lt: now } }] };
}
