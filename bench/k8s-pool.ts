// Benchmark of the kubernetes pool driver on the one-node cluster of scripts/k8s-node (the tests' node:
// LAZYBOY_TEST_KUBECONFIG and LAZYBOY_TEST_WORKER_IMAGE, or test-node.sh brings it up and down), with the
// local driver's figures beside it, measured the same way:
//   - bind to first command: provision() of a computer without a home (a warm pod is waiting) until the
//     worker answered its first call with the new binding; then until its first screen is up;
//   - cold boot: no warm pod, a computer with a new home and one with an existing home (a pod on its PVC);
//   - churn: BENCH_CHURN computers booted and stopped, BENCH_CHURN_PARALLEL at a time;
//   - memory of a computer with one idle screen (the kubelet's working set of the pod; locally the PSS of
//     the worker's process tree), and of a warm pod with no screen.
// Targets (issue #16): warm bind-to-first-command p50 ≤ 100 ms, p99 ≤ 250 ms.
// Run with `npm run bench:k8s-pool` as root after a build.
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workerRoutes } from '@lazyboy/contracts';
import type { ApiConfig } from '../apps/api/src/config/api-config.js';
import type { KubernetesPoolDriver } from '../apps/api/src/computers/kubernetes/kubernetes-pool-driver.js';
import type { PoolDriver, WorkerBinding } from '../apps/api/src/computers/pool-driver.js';
import { createKubernetesPoolDriver, createPoolDriver } from '../apps/api/src/computers/pool-drivers.js';
import { WorkerClient } from '../apps/api/src/computers/worker-client.js';
import { testApiConfig } from '../apps/api/src/testing/test-config.js';
import { podOf, testKubernetes, type TestKubernetes } from '../apps/api/src/testing/test-kubernetes.js';
import { median, percentile } from './stats.js';

const BINDS = Number(process.env.BENCH_BINDS ?? 20);
const COLD = Number(process.env.BENCH_COLD ?? 5);
const CHURN = Number(process.env.BENCH_CHURN ?? 20);
const CHURN_PARALLEL = Number(process.env.BENCH_CHURN_PARALLEL ?? 4);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 10_000);

// The driver never reaches Postgres or Redis here: the URLs only satisfy the configuration's schema.
const base = testApiConfig({
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://bench@127.0.0.1:1/bench',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:1',
  TEAM_SCREEN_LIMIT: '1',
});

const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const spread = (values: number[]) =>
  `p50 ${ms(median(values))}, p99 ${ms(percentile(values, 99))}, min ${ms(Math.min(...values))} (n=${values.length})`;

function spec(homeKey = randomUUID()) {
  return { computerId: randomUUID(), workspaceId: randomUUID(), homeKey, screenLimit: 1, bindFence: 1n };
}

/** The first call a run makes on a computer it was just given, with the binding's own token and fence. */
async function firstCommand(binding: WorkerBinding): Promise<void> {
  await new WorkerClient(binding.endpoint).call(workerRoutes.listScreens, {}, { timeoutMs: 10_000 });
}

async function firstScreen(binding: WorkerBinding): Promise<void> {
  await new WorkerClient(binding.endpoint).call(
    workerRoutes.ensureScreen,
    { slot: 0, profileKey: 'default', fence: 1 },
    { timeoutMs: 60_000 },
  );
}

interface Figures {
  bindToFirst: number[];
  bindToScreen: number[];
  churnWallMs: number;
  churnBoots: number[];
  churnFailures: number;
  memoryWithScreen: number;
}

/** BINDS computers given a worker one after another, each timed to its first command and its first screen. */
async function binds(driver: PoolDriver, before?: () => Promise<void>): Promise<Pick<Figures, 'bindToFirst' | 'bindToScreen'>> {
  const bindToFirst: number[] = [];
  const bindToScreen: number[] = [];
  for (let i = 0; i < BINDS; i++) {
    await before?.();
    const t0 = performance.now();
    const binding = await driver.provision(spec());
    await firstCommand(binding);
    bindToFirst.push(performance.now() - t0);
    await firstScreen(binding);
    bindToScreen.push(performance.now() - t0);
    await driver.stop(binding);
  }
  return { bindToFirst, bindToScreen };
}

/** Boots and stops CHURN computers, CHURN_PARALLEL at a time; every boot is timed to its first command. */
async function churn(driver: PoolDriver): Promise<Pick<Figures, 'churnWallMs' | 'churnBoots' | 'churnFailures'>> {
  const boots: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < CHURN) {
      next += 1;
      const t0 = performance.now();
      try {
        const binding = await driver.provision(spec());
        await firstCommand(binding);
        boots.push(performance.now() - t0);
        await driver.stop(binding);
      } catch (error) {
        failures += 1;
        console.error(`  churn: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CHURN_PARALLEL }, lane));
  const churnWallMs = performance.now() - started;
  console.log(
    `  churn: ${CHURN} computers booted and stopped, ${CHURN_PARALLEL} at a time, in ${(churnWallMs / 1000).toFixed(1)} s; ` +
      `boot → first command ${spread(boots)}; ${failures} failed`,
  );
  return { churnWallMs, churnBoots: boots, churnFailures: failures };
}

// ------------------------------------------------------------------------------------------ kubernetes

/** The pod's working set as the kubelet reports it (what the memory limit is enforced on). */
async function podMemory(k8s: TestKubernetes, podName: string): Promise<number> {
  const nodes = await k8s.core.listNode();
  for (const node of nodes.items) {
    const raw = await k8s.core.connectGetNodeProxyWithPath({ name: node.metadata!.name!, path: 'stats/summary' });
    const summary = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
      pods?: Array<{ podRef: { name: string }; memory?: { workingSetBytes?: number } }>;
    };
    const pod = summary.pods?.find((p) => p.podRef.name === podName);
    if (pod?.memory?.workingSetBytes) return pod.memory.workingSetBytes;
  }
  throw new Error(`the kubelet reports no memory for pod ${podName}`);
}

async function kubernetesFigures(): Promise<Figures & { coldNewHome: number[]; coldHome: number[]; warmPodMemory: number }> {
  const k8s = await testKubernetes();
  const drivers: KubernetesPoolDriver[] = [];
  const driver = (warmPods: number, name: string) => {
    const made = createKubernetesPoolDriver(
      { ...k8s.driverConfig(base, `bench-${name}`), LAZYBOY_K8S_WARM_PODS: warmPods } satisfies ApiConfig,
      k8s.kubeConfig,
    );
    drivers.push(made);
    return made;
  };
  try {
    console.log(`kubernetes (namespace ${k8s.namespace}, image ${k8s.workerImage})`);
    const warm = driver(1, 'warm');
    // A ready pod waits before each bind, as it would for a user's first message.
    const { bindToFirst, bindToScreen } = await binds(warm, () => warm.warmUp());
    console.log(`  warm bind → first command: ${spread(bindToFirst)}`);
    console.log(`  warm bind → first screen up: ${spread(bindToScreen)}`);

    // Memory: a computer with one idle screen, and the warm pod beside it.
    await warm.warmUp();
    const kept = await warm.provision(spec());
    await firstScreen(kept);
    await warm.warmUp();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const memoryWithScreen = await podMemory(k8s, podOf(kept));
    const warmPods = await k8s.core.listNamespacedPod({ namespace: k8s.namespace, labelSelector: 'lazyboy.dev/state=warm' });
    const warmPodMemory = await podMemory(k8s, warmPods.items[0]!.metadata!.name!);
    console.log(`  memory: a computer with one idle screen ${mib(memoryWithScreen)}, a warm pod ${mib(warmPodMemory)}`);
    await warm.stop(kept);
    await warm.shutdown();

    const cold = driver(0, 'cold');
    const coldNewHome: number[] = [];
    const coldHome: number[] = [];
    for (let i = 0; i < COLD; i++) {
      const computer = spec();
      let t0 = performance.now();
      const first = await cold.provision(computer);
      await firstCommand(first);
      coldNewHome.push(performance.now() - t0);
      await cold.stop(first);
      t0 = performance.now();
      const again = await cold.provision({ ...computer, bindFence: 2n });
      await firstCommand(again);
      coldHome.push(performance.now() - t0);
      await cold.stop(again);
    }
    console.log(`  cold boot, new home (PVC made): ${spread(coldNewHome)}`);
    console.log(`  cold boot, existing home: ${spread(coldHome)}`);
    await cold.shutdown();

    const churning = driver(1, 'churn');
    await churning.warmUp();
    const churned = await churn(churning);
    const left = await k8s.core.listNamespacedPod({ namespace: k8s.namespace, labelSelector: 'lazyboy.dev/state=bound' });
    console.log(`  bound pods left after churn: ${left.items.filter((p) => !p.metadata?.deletionTimestamp).length}`);
    return { bindToFirst, bindToScreen, memoryWithScreen, coldNewHome, coldHome, warmPodMemory, ...churned };
  } finally {
    for (const each of drivers) await each.shutdown().catch(() => undefined);
    await k8s.close();
  }
}

// ----------------------------------------------------------------------------------------------- local

/** Proportional set size of a process and all its descendants (shared pages split among their users). */
function treePss(root: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      total += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
    } catch {
      // gone meanwhile, or a kernel thread
    }
  }
  return total;
}

async function localFigures(): Promise<Figures> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-bench-k8s-local-'));
  chmodSync(root, 0o755); // as root the desktop runs as its own user, who must reach the homes
  const driver = await createPoolDriver({
    ...base,
    LAZYBOY_POOL_DRIVER: 'local',
    LAZYBOY_HOMES_DIR: path.join(root, 'homes'),
    LAZYBOY_LOGS_DIR: path.join(root, 'logs'),
  });
  try {
    console.log('local (worker processes on this host)');
    const { bindToFirst, bindToScreen } = await binds(driver);
    console.log(`  boot → first command: ${spread(bindToFirst)}`);
    console.log(`  boot → first screen up: ${spread(bindToScreen)}`);

    const kept = await driver.provision(spec());
    await firstScreen(kept);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const pid = Number(/:(\d+)$/.exec(kept.owner)?.[1]);
    const memoryWithScreen = treePss(pid);
    console.log(`  memory: a computer with one idle screen ${mib(memoryWithScreen)} (PSS of the worker's process tree)`);
    await driver.stop(kept);

    const churned = await churn(driver);
    return { bindToFirst, bindToScreen, memoryWithScreen, ...churned };
  } finally {
    await driver.shutdown();
    rmSync(root, { recursive: true, force: true });
  }
}

const local = await localFigures();
const cluster = await kubernetesFigures();
console.log('\nsummary                          kubernetes           local');
const row = (label: string, k: string, l: string) => console.log(`${label.padEnd(33)}${k.padEnd(21)}${l}`);
row('bind/boot → first command p50', ms(median(cluster.bindToFirst)), ms(median(local.bindToFirst)));
row('bind/boot → first command p99', ms(percentile(cluster.bindToFirst, 99)), ms(percentile(local.bindToFirst, 99)));
row('bind/boot → first screen p50', ms(median(cluster.bindToScreen)), ms(median(local.bindToScreen)));
row(
  'cold boot p50 (new / old home)',
  `${ms(median(cluster.coldNewHome))} / ${ms(median(cluster.coldHome))}`,
  '(every boot is cold)',
);
row(
  `churn ${CHURN} (${CHURN_PARALLEL} at a time)`,
  `${(cluster.churnWallMs / 1000).toFixed(1)} s`,
  `${(local.churnWallMs / 1000).toFixed(1)} s`,
);
row('memory, one idle screen', mib(cluster.memoryWithScreen), mib(local.memoryWithScreen));
row('memory, a warm pod', mib(cluster.warmPodMemory), '(no warm workers)');
const failed = cluster.churnFailures + local.churnFailures;
if (failed > 0) {
  console.error(`${failed} churn boot(s) failed`);
  process.exitCode = 1;
}
