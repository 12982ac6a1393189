import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import type { ToolContext, ToolOutcome } from '@lazyboy/agent';
import { workerRoutes } from '@lazyboy/contracts';
import { computerTools, type ScreenProvider } from '../../agent-tools/index.js';
import { AuditRepository } from '../../audit/audit.repository.js';
import { AuditService } from '../../audit/audit.service.js';
import type { ApiConfig } from '../../config/api-config.js';
import { PrismaService } from '../../persistence/prisma.service.js';
import { RedisService } from '../../redis/redis.service.js';
import { testApiConfig } from '../../testing/test-config.js';
import { createIsolatedDatabase, type IsolatedDatabase } from '../../testing/test-database.js';
import { podOf, testKubernetes, type TestKubernetes } from '../../testing/test-kubernetes.js';
import { ComputerIdleLoop } from '../computer-idle-loop.js';
import { ComputerRunScreens } from '../computer-run-screens.js';
import { createKubernetesPoolDriver } from '../pool-drivers.js';
import { ComputersRepository } from '../computers.repository.js';
import { ComputersService } from '../computers.service.js';
import { PowerLock } from '../power-lock.js';
import type { AcquiredScreen } from '../run-screens.js';
import { ScreenControlService } from '../screen-control.service.js';
import { WorkerCallError, WorkerClient } from '../worker-client.js';
import { leaseName } from './computer-leases.js';
import type { KubernetesPoolDriver } from './kubernetes-pool-driver.js';
import { sleep, until } from '../../../../../test/support/index.js';

// Faults on real pods, through ComputersService replicas as the API runs them: a pod deleted while a run's
// call is on it, two replicas racing to take over a computer, and a replica that dies holding computers.
// The binding lease is short (5 s) so that expiry is waited for, not written into the database.

const BIND_LEASE_MS = 5_000;

let k8s: TestKubernetes;
let db: IsolatedDatabase;
let config: ApiConfig;
let prisma: PrismaService;
let redis: RedisService;
let repo: ComputersRepository;
let coordination: CoordinationV1Api;

interface Replica {
  id: string;
  driver: KubernetesPoolDriver;
  computers: ComputersService;
  screens: ComputerRunScreens;
  alive: boolean;
}
let replicas: Replica[] = [];

function replica(): Replica {
  const id = `faults-${replicas.length + 1}`;
  const driver = createKubernetesPoolDriver(k8s.driverConfig(config, id), k8s.kubeConfig) as KubernetesPoolDriver;
  const computers = new ComputersService(repo, driver, new PowerLock(redis), config);
  const made = { id, driver, computers, screens: new ComputerRunScreens(computers, repo), alive: true };
  replicas.push(made);
  return made;
}

/** A replica's process dies: nothing of it renews, watches or answers any more; its pods run on. */
async function kill(dead: Replica): Promise<void> {
  dead.alive = false;
  dead.computers.detach();
  await dead.driver.shutdown();
}

async function newComputer(): Promise<{ workspaceId: string; agentId: string; computerId: string }> {
  const workspace = await prisma.workspace.create({ data: { name: 'faults', slug: `faults-${randomUUID()}` } });
  const agent = await prisma.agent.create({
    data: { workspaceId: workspace.id, name: 'f', avatarSeed: 'f', computerMode: 'private' },
  });
  const computer = await repo.ensureComputerForAgent({ id: agent.id, workspaceId: workspace.id, computerMode: 'private' });
  return { workspaceId: workspace.id, agentId: agent.id, computerId: computer.id };
}

async function newRun(): Promise<{ workspaceId: string; agentId: string; runId: string }> {
  const { workspaceId, agentId } = await newComputer();
  // Queued is enough: the screens look at the run's id, not its status (the runs module alone moves a status).
  const run = await prisma.run.create({ data: { workspaceId, agentId } });
  return { workspaceId, agentId, runId: run.id };
}

/** The computer tools of a run holding `held`, called as the agent loop calls them. */
function toolsOf(held: AcquiredScreen): (name: string, args: Record<string, unknown>) => Promise<ToolOutcome> {
  const provider: ScreenProvider = { get: async () => held };
  const tools = computerTools(provider, { outputPollMs: 50 });
  let calls = 0;
  return (name, args) => {
    const tool = tools.find((t) => t.name === name)!;
    const ctx: ToolContext = { signal: new AbortController().signal, callId: `call-${++calls}`, background: () => 'job' };
    return tool.execute(tool.schema.parse(args), ctx);
  };
}

const row = (id: string) => prisma.computer.findUniqueOrThrow({ where: { id } });
const lease = (computerId: string): Promise<V1Lease> =>
  coordination.readNamespacedLease({ name: leaseName(computerId), namespace: k8s.namespace });

/** A call with a binding this replica no longer holds: the worker's answer (a refusal is expected). */
async function refusal(endpoint: WorkerClient['endpoint']): Promise<string> {
  try {
    await new WorkerClient(endpoint).call(workerRoutes.listScreens, {}, { timeoutMs: 10_000 });
    return 'accepted';
  } catch (error) {
    return error instanceof WorkerCallError ? error.code : String(error);
  }
}

export function describeKubernetesFaults(): void {
  describe('the kubernetes driver under faults: a deleted pod, racing replicas, a replica that dies', () => {
    beforeAll(async () => {
      k8s = await testKubernetes();
      db = await createIsolatedDatabase();
      // No warm pods: several replicas share the namespace here, and every boot is a cold start on its home.
      config = {
        ...testApiConfig({ DATABASE_URL: db.url, TEAM_SCREEN_LIMIT: '1' }),
        LAZYBOY_COMPUTER_BIND_LEASE_MS: BIND_LEASE_MS,
        LAZYBOY_K8S_WARM_PODS: 0,
      };
      prisma = new PrismaService(config);
      redis = new RedisService(config);
      repo = new ComputersRepository(prisma);
      coordination = k8s.kubeConfig.makeApiClient(CoordinationV1Api);
      await redis.onModuleInit();
    }, 30 * 60_000);

    afterEach(async () => {
      for (const each of replicas.splice(0)) {
        if (!each.alive) continue;
        for (const id of each.computers.heldBindings().keys()) await each.computers.stop(id).catch(() => undefined);
        await kill(each);
      }
      replicas = [];
    }, 120_000);

    afterAll(async () => {
      await prisma?.$disconnect();
      redis?.client.disconnect();
      await db?.drop();
      await k8s?.close();
    }, 120_000);

    it('a pod deleted mid-call: the call ends with COMPUTER_LOST, the next call starts a pod on the same home', async () => {
      const { screens } = replica();
      const held = await screens.acquire({ ...(await newRun()), onStep: () => undefined, signal: new AbortController().signal });
      const use = toolsOf(held);
      expect(await use('shell', { command: 'echo before > ~/kept.txt && echo ok' })).toEqual({
        content: 'exit 0\nok\n',
        isError: false,
      });
      const first = await row(held.computerId);
      const firstPod = podOf({ owner: first.bindOwner! } as never);

      const waiting = use('wait', { seconds: 30 });
      await sleep(1_500); // the wait is on the worker
      await k8s.core.deleteNamespacedPod({ name: firstPod, namespace: k8s.namespace });
      const outcome = await waiting;
      expect(outcome.isError).toBe(true);
      expect(outcome.content).toMatch(/^COMPUTER_LOST: the computer went away while this call ran/);
      await until('the lost pod to be recorded', async () =>
        (await row(held.computerId)).state === 'stopped' ? true : undefined,
      );
      // Whichever hears it first says why: the pod watch (the pod is being deleted) or the call whose
      // connection dropped, finding the worker no longer answers.
      expect((await row(held.computerId)).errorMessage).toMatch(
        /its worker went away \(its pod is being deleted\)|the worker stopped answering/,
      );

      // The next call boots a pod of its own on the computer's home (fence + 1) and finds the file.
      expect(await use('shell', { command: 'cat ~/kept.txt' })).toEqual({ content: 'exit 0\nbefore\n', isError: false });
      const now = await row(held.computerId);
      expect(now.state).toBe('running');
      expect(now.bindFence).toBeGreaterThan(first.bindFence);
      expect(podOf({ owner: now.bindOwner! } as never)).not.toBe(firstPod);
      expect((await lease(held.computerId)).metadata?.annotations?.['lazyboy.dev/bind-fence']).toBe(String(now.bindFence));
    }, 300_000);

    it("two replicas racing to take over a dead replica's computer: one wins the fence and the Lease, the pod stays, the dead one is refused", async () => {
      const dead = replica();
      const { computerId } = await newComputer();
      const booted = await dead.computers.ensureRunning(computerId);
      expect((await lease(computerId)).spec?.holderIdentity).toBe(dead.id);
      await kill(dead);
      await sleep(BIND_LEASE_MS + 500);

      const [b, c] = [replica(), replica()];
      const [fromB, fromC] = await Promise.all([b.computers.ensureRunning(computerId), c.computers.ensureRunning(computerId)]);
      const after = await row(computerId);
      expect(after.bindFence).toBe(booted.binding.bindFence + 1n);
      // Both answer with the computer as it is now; only the winner holds it, and the cluster agrees.
      expect(fromB.binding.bindFence).toBe(after.bindFence);
      expect(fromC.binding.bindFence).toBe(after.bindFence);
      const holders = [b, c].filter((r) => r.computers.heldBindings().get(computerId) === after.bindFence);
      expect(holders).toHaveLength(1);
      const taken = await lease(computerId);
      expect(taken.spec?.holderIdentity).toBe(holders[0]!.id);
      expect(taken.spec?.leaseTransitions).toBe(1);
      expect(taken.metadata?.annotations?.['lazyboy.dev/bind-fence']).toBe(String(after.bindFence));
      // The same pod, driven with the new fence; the dead replica's binding is refused by the worker.
      expect(podOf(fromB.binding)).toBe(podOf(booted.binding));
      expect(await refusal(booted.binding.endpoint)).toBe('STALE_BINDER');
      expect(await refusal(fromB.binding.endpoint)).toBe('accepted');
    }, 300_000);

    it('a replica that dies holding computers: they stay its own until its lease expires, then the idle loop of another takes them over', async () => {
      const dead = replica();
      const ids = [(await newComputer()).computerId, (await newComputer()).computerId];
      const booted = await Promise.all(ids.map((id) => dead.computers.ensureRunning(id)));
      await dead.computers.renewLeases(); // alive until now: the first boot's lease must not lapse meanwhile
      await kill(dead);

      const alive = replica();
      const control = new ScreenControlService(alive.computers, repo, new AuditService(new AuditRepository(prisma)), config);
      const loop = new ComputerIdleLoop(alive.computers, control, repo, alive.driver, config);
      // Within the lease: the dead replica's computers are left alone (it might only be slow).
      await loop.tick();
      for (const [i, id] of ids.entries()) {
        expect((await row(id)).bindFence).toBe(booted[i]!.binding.bindFence);
        expect((await lease(id)).spec?.holderIdentity).toBe(dead.id);
      }
      expect(alive.computers.heldBindings().size).toBe(0);

      await sleep(BIND_LEASE_MS + 500);
      await loop.tick();
      for (const [i, id] of ids.entries()) {
        const before = booted[i]!.binding;
        const now = await row(id);
        expect(now).toMatchObject({ state: 'running', bindFence: before.bindFence + 1n, bindOwner: before.owner });
        expect(alive.computers.heldBindings().get(id)).toBe(before.bindFence + 1n);
        const taken = await lease(id);
        expect(taken.spec?.holderIdentity).toBe(alive.id);
        expect(taken.metadata?.annotations?.['lazyboy.dev/bind-fence']).toBe(String(before.bindFence + 1n));
        expect(await refusal(before.endpoint)).toBe('STALE_BINDER');
      }
      // The computer is driven by the new holder, on the pod it had: nothing was restarted.
      const running = await alive.computers.ensureRunning(ids[0]!);
      expect(podOf(running.binding)).toBe(podOf(booted[0]!.binding));
      expect(await refusal(running.binding.endpoint)).toBe('accepted');
    }, 300_000);

    it('a replica that was only cut off loses the Lease on its next renewal and lets the pod go without stopping it', async () => {
      const slow = replica();
      const { computerId } = await newComputer();
      const booted = await slow.computers.ensureRunning(computerId);
      // Its database renewals stop (cut off from Postgres); its driver still renews the Lease meanwhile.
      await sleep(BIND_LEASE_MS + 500);
      const other = replica();
      const taken = await other.computers.ensureRunning(computerId);
      expect(taken.binding.bindFence).toBe(booted.binding.bindFence + 1n);
      expect((await lease(computerId)).spec?.holderIdentity).toBe(other.id);

      // Back: the slow replica's renewal finds the binding gone and lets the worker go; the pod runs on.
      await slow.computers.renewLeases();
      expect(slow.computers.heldBindings().has(computerId)).toBe(false);
      await sleep(BIND_LEASE_MS / 3 + 500); // its driver's Lease renewal has run and lost
      expect((await lease(computerId)).spec?.holderIdentity).toBe(other.id);
      expect(await refusal(taken.binding.endpoint)).toBe('accepted');
      expect(await refusal(booted.binding.endpoint)).toBe('STALE_BINDER');
      expect((await row(computerId)).state).toBe('running');
    }, 300_000);
  });
}
