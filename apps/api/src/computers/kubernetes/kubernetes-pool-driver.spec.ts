import { afterAll, beforeAll } from '@jest/globals';
import type { ApiConfig } from '../../config/api-config.js';
import { testApiConfig } from '../../testing/test-config.js';
import { testKubernetes, type TestKubernetes } from '../../testing/test-kubernetes.js';
import { createKubernetesPoolDriver } from '../computers.module.js';
import { describePoolDriverConformance } from '../pool-driver.conformance.js';
import type { PoolDriver, WorkerBinding } from '../pool-driver.js';
import { isNotFound } from './api-errors.js';
import type { KubernetesPoolDriver } from './kubernetes-pool-driver.js';
import { describeKubernetesPoolPaths } from './kubernetes-pool-paths.js';

// The cluster driver on a real one-node Kubernetes (scripts/k8s-node): worker pods of the image
// deploy/images/build.sh makes, in a namespace of this suite's own, through ComputersService replicas.

let k8s: TestKubernetes;
let replicas = 0;

beforeAll(async () => {
  k8s = await testKubernetes();
}, 30 * 60_000);

afterAll(async () => {
  await k8s?.close();
}, 120_000);

const config = testApiConfig({ TEAM_SCREEN_LIMIT: '1' });

/** One API replica's driver configuration, as the chart would set it. */
function kubernetesConfig(base: ApiConfig, replica: string): ApiConfig {
  return {
    ...base,
    LAZYBOY_POOL_DRIVER: 'kubernetes',
    LAZYBOY_K8S_NAMESPACE: k8s.namespace,
    LAZYBOY_K8S_WORKER_IMAGE: k8s.workerImage,
    LAZYBOY_K8S_IMAGE_PULL_POLICY: 'Never',
    LAZYBOY_K8S_WARM_PODS: 1,
    LAZYBOY_K8S_HOME_SIZE: '1Gi',
    LAZYBOY_K8S_REPLICA_ID: replica,
    LAZYBOY_POOL_TOKEN: k8s.poolToken,
    LAZYBOY_COMPUTER_CPUS: 1,
    LAZYBOY_COMPUTER_MEMORY_MB: 1024,
  };
}

const podOf = (binding: WorkerBinding) => binding.owner.split('/')[1]!;

describePoolDriverConformance('kubernetes', {
  config,
  workersOutliveApi: true,
  makeDriver: () => {
    replicas += 1;
    return createKubernetesPoolDriver(kubernetesConfig(config, `api-${replicas}`), k8s.kubeConfig);
  },
  // A replica that dies stops watching and renewing; its pods run on.
  crash: async (driver: PoolDriver) => {
    await (driver as KubernetesPoolDriver).shutdown();
  },
  kill: async (binding) => {
    await k8s.core.deleteNamespacedPod({ name: podOf(binding), namespace: k8s.namespace, gracePeriodSeconds: 0 });
  },
  running: async (binding) => {
    try {
      await k8s.core.readNamespacedPod({ name: podOf(binding), namespace: k8s.namespace });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  },
});

describeKubernetesPoolPaths();
