import { afterAll, beforeAll } from '@jest/globals';
import { testApiConfig } from '../../testing/test-config.js';
import { podOf, testKubernetes, type TestKubernetes } from '../../testing/test-kubernetes.js';
import { createKubernetesPoolDriver } from '../pool-drivers.js';
import { describePoolDriverConformance } from '../pool-driver.conformance.js';
import type { PoolDriver } from '../pool-driver.js';
import { isNotFound } from './api-errors.js';
import type { KubernetesPoolDriver } from './kubernetes-pool-driver.js';
import { describeKubernetesFaults } from './kubernetes-faults.cases.js';
import { describeKubernetesPoolPaths } from './kubernetes-pool-paths.cases.js';
import { containersEnded } from './worker-pods.js';

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

describePoolDriverConformance('kubernetes', {
  config,
  workersOutliveApi: true,
  makeDriver: () => {
    replicas += 1;
    return createKubernetesPoolDriver(k8s.driverConfig(config, `api-${replicas}`), k8s.kubeConfig);
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
      // A deleted pod's object lingers until the kubelet's next sync; its worker ended with its containers.
      return !containersEnded(await k8s.core.readNamespacedPod({ name: podOf(binding), namespace: k8s.namespace }));
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  },
});

describeKubernetesPoolPaths();
describeKubernetesFaults();
