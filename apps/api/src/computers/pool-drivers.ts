import { hostname } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { repoRoot } from '@lazyboy/localstack';
import type { ApiConfig } from '../config/api-config.js';
import { KubernetesPoolDriver } from './kubernetes/kubernetes-pool-driver.js';
import { LocalPoolDriver } from './local-pool-driver.js';
import type { PoolDriver } from './pool-driver.js';
import { StaticPoolDriver, type StaticPoolDriverOptions } from './static/static-pool-driver.js';

// The pool drivers made from the API's configuration, outside the Nest module so that tests and
// bench/k8s-pool make them exactly as the API does.

/** Settings every worker carries, checked here at start-up: one egress policy for all computers. */
function workerEnv(config: ApiConfig): Record<string, string> {
  return {
    LAZYBOY_EGRESS_PRIVATE_NETWORKS: config.LAZYBOY_EGRESS_PRIVATE_NETWORKS,
    LAZYBOY_EGRESS_ALLOWED_DOMAINS: config.LAZYBOY_EGRESS_ALLOWED_DOMAINS?.join(',') ?? '',
  };
}

/** The cluster driver, from the API's environment (the chart's values); its kube config from the pod's service account. */
export function createKubernetesPoolDriver(config: ApiConfig, kubeConfig?: KubeConfig): KubernetesPoolDriver {
  if (!config.LAZYBOY_K8S_WORKER_IMAGE || !config.LAZYBOY_POOL_TOKEN) {
    throw new Error('LAZYBOY_POOL_DRIVER=kubernetes needs LAZYBOY_K8S_WORKER_IMAGE and LAZYBOY_POOL_TOKEN');
  }
  let kc = kubeConfig;
  if (!kc) {
    kc = new KubeConfig();
    kc.loadFromDefault();
  }
  return new KubernetesPoolDriver({
    kubeConfig: kc,
    template: {
      namespace: config.LAZYBOY_K8S_NAMESPACE,
      image: config.LAZYBOY_K8S_WORKER_IMAGE,
      imagePullPolicy: config.LAZYBOY_K8S_IMAGE_PULL_POLICY,
      poolSecret: config.LAZYBOY_K8S_POOL_SECRET,
      cpus: config.LAZYBOY_COMPUTER_CPUS,
      memoryMb: config.LAZYBOY_COMPUTER_MEMORY_MB,
      screenLimit: config.TEAM_SCREEN_LIMIT,
      homeSize: config.LAZYBOY_K8S_HOME_SIZE,
      storageClass: config.LAZYBOY_K8S_STORAGE_CLASS,
      env: workerEnv(config),
    },
    warmPods: config.LAZYBOY_K8S_WARM_PODS,
    poolToken: config.LAZYBOY_POOL_TOKEN,
    replicaId: config.LAZYBOY_K8S_REPLICA_ID ?? hostname(),
    leaseDurationMs: config.LAZYBOY_COMPUTER_BIND_LEASE_MS,
  });
}

/**
 * The static pool's driver: the workers compose runs, found at LAZYBOY_STATIC_WORKERS. Their settings
 * (egress, screens, homes) are the compose file's; the API cannot hand them any.
 */
export function createStaticPoolDriver(
  config: ApiConfig,
  options: Partial<Pick<StaticPoolDriverOptions, 'lookup' | 'pollMs' | 'stopTimeoutMs' | 'restartWaitMs'>> = {},
): StaticPoolDriver {
  if (!config.LAZYBOY_STATIC_WORKERS || !config.LAZYBOY_POOL_TOKEN) {
    throw new Error('LAZYBOY_POOL_DRIVER=static needs LAZYBOY_STATIC_WORKERS and LAZYBOY_POOL_TOKEN');
  }
  return new StaticPoolDriver({ ...options, workers: config.LAZYBOY_STATIC_WORKERS, poolToken: config.LAZYBOY_POOL_TOKEN });
}

export async function createPoolDriver(config: ApiConfig): Promise<PoolDriver> {
  if (config.LAZYBOY_POOL_DRIVER === 'static') return createStaticPoolDriver(config);
  if (config.LAZYBOY_POOL_DRIVER === 'kubernetes') {
    const driver = createKubernetesPoolDriver(config);
    // The first list of pods is in before any computer is adopted or booted.
    await driver.start();
    return driver;
  }
  return new LocalPoolDriver({
    workerScript: path.join(repoRoot, 'apps/worker/dist/main.js'),
    homesDir: path.resolve(config.LAZYBOY_HOMES_DIR),
    ...(config.LAZYBOY_LOGS_DIR ? { logsDir: path.resolve(config.LAZYBOY_LOGS_DIR) } : {}),
    displayBaseFrom: config.LAZYBOY_DISPLAY_BASE_FROM,
    env: workerEnv(config),
  });
}
