import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { repoRoot } from '@lazyboy/localstack';
import type { ApiConfig } from '../config/api-config.js';
import type { WorkerBinding } from '../computers/pool-driver.js';
import { isNotFound } from '../computers/kubernetes/api-errors.js';

const run = promisify(execFile);

/** A namespace of its own on the tests' Kubernetes, with the pool's Secret in it. */
export interface TestKubernetes {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  /** The worker image, loaded into the node (deploy/images/build.sh worker). */
  workerImage: string;
  namespace: string;
  poolToken: string;
  /** One API replica's kubernetes driver configuration in this namespace, as the chart would set it. */
  driverConfig(base: ApiConfig, replica: string): ApiConfig;
  /** Deletes the namespace (and with it every pod, volume and Lease); stops the node if this suite started it. */
  close(): Promise<void>;
}

/**
 * The cluster driver's tests run against a real one-node Kubernetes: the one `./lazyboy test` brought up
 * (LAZYBOY_TEST_KUBECONFIG, LAZYBOY_TEST_WORKER_IMAGE), or, for a suite run on its own, one this brings
 * up with scripts/k8s-node/test-node.sh (as root; the first time on a machine builds Kubernetes, ~8 min).
 */
export async function testKubernetes(): Promise<TestKubernetes> {
  let kubeconfigPath = process.env.LAZYBOY_TEST_KUBECONFIG;
  let workerImage = process.env.LAZYBOY_TEST_WORKER_IMAGE;
  let startedHere = false;
  if (!kubeconfigPath || !workerImage) {
    const { stdout } = await run('bash', [path.join(repoRoot, 'scripts/k8s-node/test-node.sh')], {
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [file, image, started] = stdout.trim().split(/\s+/);
    kubeconfigPath = file!;
    workerImage = image!;
    startedHere = started === '1';
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespace = `lazyboy-test-${randomBytes(4).toString('hex')}`;
  const poolToken = randomBytes(32).toString('base64url');
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'lazyboy-pool' }, stringData: { 'pool-token': poolToken } },
  });
  // Pods are refused until the namespace's default service account exists (its controller makes it).
  for (let tries = 0; ; tries += 1) {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace });
      break;
    } catch (error) {
      if (!isNotFound(error) || tries > 100) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    kubeConfig,
    core,
    workerImage,
    namespace,
    poolToken,
    driverConfig: (base, replica) => ({
      ...base,
      LAZYBOY_POOL_DRIVER: 'kubernetes',
      LAZYBOY_K8S_NAMESPACE: namespace,
      LAZYBOY_K8S_WORKER_IMAGE: workerImage,
      LAZYBOY_K8S_IMAGE_PULL_POLICY: 'Never',
      LAZYBOY_K8S_WARM_PODS: 1,
      LAZYBOY_K8S_HOME_SIZE: '1Gi',
      LAZYBOY_K8S_REPLICA_ID: replica,
      LAZYBOY_POOL_TOKEN: poolToken,
      LAZYBOY_COMPUTER_CPUS: 1,
      LAZYBOY_COMPUTER_MEMORY_MB: 1024,
    }),
    close: async () => {
      await core.deleteNamespace({ name: namespace }).catch(() => undefined);
      if (startedHere) await run('bash', [path.join(repoRoot, 'scripts/k8s-node/node-down.sh')], { timeout: 120_000 });
    },
  };
}

/** The pod serving a kubernetes driver's binding (its owner is `k8s:<namespace>/<pod>`). */
export const podOf = (binding: WorkerBinding): string => binding.owner.split('/')[1]!;
