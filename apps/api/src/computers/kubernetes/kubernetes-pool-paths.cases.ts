import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { CoordinationV1Api, type V1Pod } from '@kubernetes/client-node';
import { workerRoutes } from '@lazyboy/contracts';
import type { ApiConfig } from '../../config/api-config.js';
import { testApiConfig } from '../../testing/test-config.js';
import { podOf, testKubernetes, type TestKubernetes } from '../../testing/test-kubernetes.js';
import { createKubernetesPoolDriver } from '../pool-drivers.js';
import type { ComputerSpec, WorkerBinding } from '../pool-driver.js';
import { WorkerClient } from '../worker-client.js';
import { leaseName } from './computer-leases.js';
import type { KubernetesPoolDriver } from './kubernetes-pool-driver.js';
import { labels, podReady, WORKER_PORT, WORKER_SELECTOR } from './worker-pods.js';
import { until } from '../../../../../test/support/index.js';

// What only the cluster driver does, on a real one-node Kubernetes: the two ways a computer gets a pod (a
// warm one for a computer without a home, a cold start on its volume otherwise), the pod it makes, the
// Lease beside the bind fence, a warm pod someone else reached first, and an image that cannot start.
// kubernetes-pool-driver.spec.ts runs these after the conformance suite: two files at once overload the node.

let k8s: TestKubernetes;
const drivers: KubernetesPoolDriver[] = [];

function driver(overrides: Partial<ApiConfig> = {}): KubernetesPoolDriver {
  const base = k8s.driverConfig(testApiConfig({ TEAM_SCREEN_LIMIT: '1' }), `paths-${drivers.length + 1}`);
  const made = createKubernetesPoolDriver({ ...base, ...overrides }, k8s.kubeConfig);
  drivers.push(made);
  return made;
}

function spec(overrides: Partial<ComputerSpec> = {}): ComputerSpec {
  return {
    computerId: randomUUID(),
    workspaceId: randomUUID(),
    homeKey: randomUUID(),
    screenLimit: 1,
    bindFence: 1n,
    ...overrides,
  };
}

async function pods(selector = ''): Promise<V1Pod[]> {
  const found = await k8s.core.listNamespacedPod({
    namespace: k8s.namespace,
    labelSelector: `${WORKER_SELECTOR}${selector ? `,${selector}` : ''}`,
  });
  return found.items.filter((p) => !p.metadata?.deletionTimestamp);
}

/** The worker's screen 0 up, claimed by execution fence 1 (what a run's first tool call does). */
async function screen(binding: WorkerBinding): Promise<WorkerClient> {
  const worker = new WorkerClient(binding.endpoint);
  await worker.call(workerRoutes.ensureScreen, { slot: 0, profileKey: 'default', fence: 1 }, { timeoutMs: 60_000 });
  return worker;
}

export function describeKubernetesPoolPaths(): void {
  describe('the kubernetes driver: warm pods, homes, Leases', () => {
    beforeAll(async () => {
      k8s = await testKubernetes();
    }, 30 * 60_000);

    afterEach(async () => {
      for (const driver of drivers.splice(0)) await driver.shutdown();
    });

    afterAll(async () => {
      await k8s?.close();
    }, 120_000);

    it('a computer without a home binds the warm pod (non-root, no token, its resources), takes a Lease, and the pool refills', async () => {
      const pool = driver();
      await pool.warmUp();
      const warmPods = await pods(`${labels.state}=warm`);
      expect(warmPods).toHaveLength(1);
      const warm = warmPods[0];
      const computer = spec();

      const binding = await pool.provision(computer);
      // The warm pod itself is assigned (no pod was started for the computer).
      expect(podOf(binding)).toBe(warm!.metadata!.name);
      const pod = await k8s.core.readNamespacedPod({ name: podOf(binding), namespace: k8s.namespace });
      expect(pod.metadata?.labels).toMatchObject({
        [labels.state]: 'bound',
        [labels.computer]: computer.computerId,
        [labels.workspace]: computer.workspaceId,
      });
      expect(pod.spec?.automountServiceAccountToken).toBe(false);
      expect(pod.spec?.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      const container = pod.spec!.containers[0]!;
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(container.resources?.limits).toEqual({ cpu: '1', memory: '1Gi' });
      // The worker answers with the computer it was assigned, on the binding's own token and fence.
      expect((await new WorkerClient(binding.endpoint).call(workerRoutes.health, {})).computerId).toBe(computer.computerId);

      const coordination = k8s.kubeConfig.makeApiClient(CoordinationV1Api);
      const lease = await coordination.readNamespacedLease({ name: leaseName(computer.computerId), namespace: k8s.namespace });
      expect(lease.spec?.holderIdentity).toBe('paths-1');
      expect(lease.metadata?.annotations?.['lazyboy.dev/bind-fence']).toBe('1');

      // The pool refills in the background, by itself: another pod, ready and nobody's.
      const refilled = await until(
        'the warm pool refilled',
        async () => {
          const now = await pods(`${labels.state}=warm`);
          return now.length > 0 && now.every(podReady) && now;
        },
        { timeoutMs: 120_000, everyMs: 500 },
      );
      expect(refilled.map((p) => p.metadata!.name)).not.toContain(warm!.metadata!.name);
      expect(refilled).toHaveLength(1);

      await pool.stop(binding);
      await expect(
        coordination.readNamespacedLease({ name: leaseName(computer.computerId), namespace: k8s.namespace }),
      ).rejects.toMatchObject({ code: 404 });
    }, 300_000);

    it('a home outlives its pod: stopped, the computer cold-starts a pod on the same volume and finds its file', async () => {
      const pool = driver();
      await pool.warmUp();
      const computer = spec();
      const first = await pool.provision(computer);
      const kept = `kept ${randomBytes(8).toString('hex')}`;
      await (await screen(first)).call(workerRoutes.filesWrite, { slot: 0, fence: 1, path: 'notes/kept.txt', content: kept });
      const [home] = (
        await k8s.core.listNamespacedPersistentVolumeClaim({
          namespace: k8s.namespace,
          labelSelector: `${labels.homeKey}=${computer.homeKey}`,
        })
      ).items;
      expect(home?.metadata?.labels?.[labels.state]).toBe('home');

      await pool.stop(first);
      expect(await pods(`${labels.computer}=${computer.computerId}`)).toEqual([]);

      await pool.warmUp();
      const warmBefore = (await pods(`${labels.state}=warm`)).map((p) => p.metadata!.name);
      const second = await pool.provision({ ...computer, bindFence: 2n });
      expect(podOf(second)).not.toBe(podOf(first));
      const pod = await k8s.core.readNamespacedPod({ name: podOf(second), namespace: k8s.namespace });
      // Not the warm pod (its fresh volume is not this home): a pod of its own on the computer's volume.
      expect(pod.spec?.volumes?.find((v) => v.name === 'computer')?.persistentVolumeClaim?.claimName).toBe(home!.metadata!.name);
      expect((await pods(`${labels.state}=warm`)).map((p) => p.metadata!.name)).toEqual(warmBefore);
      const read = await (await screen(second)).call(workerRoutes.filesRead, { slot: 0, fence: 1, path: 'notes/kept.txt' });
      expect(read.content).toBe(kept);
      await pool.stop(second);
    }, 300_000);

    it('a warm pod someone else assigned first is not used: the boot starts a pod of its own and that one is deleted', async () => {
      const pool = driver();
      await pool.warmUp();
      const [warm] = await pods(`${labels.state}=warm`);
      const hijacker = new WorkerClient({
        baseUrl: `http://${warm!.status!.podIP!}:${WORKER_PORT}`,
        token: k8s.poolToken,
        bindFence: 0,
      });
      await hijacker.call(workerRoutes.assign, {
        computerId: randomUUID(),
        controlToken: randomBytes(32).toString('base64url'),
        bindFence: 1,
        screenLimit: 1,
      });

      const computer = spec();
      const binding = await pool.provision(computer);
      expect(podOf(binding)).not.toBe(warm!.metadata!.name);
      expect((await new WorkerClient(binding.endpoint).call(workerRoutes.health, {})).computerId).toBe(computer.computerId);
      const names = (await pods()).map((p) => p.metadata!.name);
      expect(names).not.toContain(warm!.metadata!.name);
      await pool.stop(binding);
    }, 300_000);

    it('an image that cannot start fails the boot at once, with the reason, and leaves no pod behind', async () => {
      const pool = driver({ LAZYBOY_K8S_WORKER_IMAGE: 'localhost/lazyboy/no-such-worker:0', LAZYBOY_K8S_WARM_PODS: 0 });
      const computer = spec();
      // The pod's waiting reason ends the boot, not the 120 s boot timeout (that would be PodWaitTimeoutError).
      await expect(pool.provision(computer)).rejects.toThrow(/cannot start: ErrImageNeverPull/);
      expect(await pods(`${labels.computer}=${computer.computerId}`)).toEqual([]);
    }, 300_000);
  });
}
