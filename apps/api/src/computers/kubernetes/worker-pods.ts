import type { V1ContainerStatus, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';

/** The worker's control port in its pod (the image's LAZYBOY_WORKER_PORT default). */
export const WORKER_PORT = 3102;
/** Where a pod mounts its computer's volume; the home is a directory the worker makes on it. */
const VOLUME_MOUNT = '/var/lib/lazyboy/computer';

/** Labels of what the driver makes: who made it, and whose it is. */
export const labels = {
  name: 'app.kubernetes.io/name',
  managedBy: 'app.kubernetes.io/managed-by',
  /** `warm` (ready, nobody's) or `bound` (a computer's) for a pod; `warm` or `home` for a volume. */
  state: 'lazyboy.dev/state',
  computer: 'lazyboy.dev/computer',
  workspace: 'lazyboy.dev/workspace',
  /** On a volume: the home key of the computer whose home it is. */
  homeKey: 'lazyboy.dev/home-key',
} as const;

export const WORKER_APP = 'lazyboy-worker';
export const MANAGER = 'lazyboy-api';
/** Selects every worker pod and home volume of this driver. */
export const WORKER_SELECTOR = `${labels.name}=${WORKER_APP},${labels.managedBy}=${MANAGER}`;

/** What the chart decides about worker pods (values.yaml → the API's environment). */
export interface WorkerPodTemplate {
  namespace: string;
  image: string;
  imagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  /** The Secret (its `pool-token` key) the worker gets as LAZYBOY_POOL_TOKEN. */
  poolSecret: string;
  cpus: number;
  memoryMb: number;
  /** Most screens one pod runs (a Team computer's agents). */
  screenLimit: number;
  homeSize: string;
  storageClass?: string | undefined;
  /** Settings every worker carries (the egress policy). */
  env: Record<string, string>;
}

/** Who a pod or volume belongs to, once it is a computer's. */
export interface Owner {
  computerId: string;
  workspaceId?: string | undefined;
}

/**
 * A worker pod: the desktop and the worker in pool mode, non-root with no privilege escalation, the
 * runtime's default seccomp profile and no service-account token; its volume is the computer's home.
 * Warm pods and a computer's cold start are the same pod, only labelled differently: both are assigned
 * their computer over the control API, so there is one way a pod becomes a computer's.
 */
export function workerPod(template: WorkerPodTemplate, name: string, claimName: string, owner?: Owner): V1Pod {
  const cpuLimit = template.cpus;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: template.namespace,
      labels: {
        [labels.name]: WORKER_APP,
        [labels.managedBy]: MANAGER,
        [labels.state]: owner ? 'bound' : 'warm',
        ...ownerLabels(owner),
      },
    },
    spec: {
      automountServiceAccountToken: false,
      // Service links would hand every worker the addresses of the cluster's services in its environment.
      enableServiceLinks: false,
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 10,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      volumes: [
        { name: 'computer', persistentVolumeClaim: { claimName } },
        { name: 'tmp', emptyDir: {} },
        // Chromium's shared memory: the container runtime's 64 MiB /dev/shm crashes tabs.
        { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '512Mi' } },
      ],
      containers: [
        {
          name: 'worker',
          image: template.image,
          imagePullPolicy: template.imagePullPolicy,
          env: [
            { name: 'LAZYBOY_WORKER_MODE', value: 'pool' },
            { name: 'LAZYBOY_WORKER_HOST', value: '0.0.0.0' },
            { name: 'LAZYBOY_WORKER_PORT', value: String(WORKER_PORT) },
            { name: 'LAZYBOY_COMPUTER_HOME', value: `${VOLUME_MOUNT}/home` },
            { name: 'LAZYBOY_SHELL_BOUNDARY', value: 'container' },
            { name: 'TEAM_SCREEN_LIMIT', value: String(template.screenLimit) },
            { name: 'LAZYBOY_POOL_TOKEN', valueFrom: { secretKeyRef: { name: template.poolSecret, key: 'pool-token' } } },
            ...Object.entries(template.env).map(([envName, value]) => ({ name: envName, value })),
          ],
          ports: [{ name: 'control', containerPort: WORKER_PORT }],
          // A bound pod that turns unready is taken for lost (podGoneReason): the kubelet's default 1 s
          // timeout would call a worker busy drawing a screenshot on a loaded node gone.
          readinessProbe: {
            httpGet: { path: '/healthz', port: WORKER_PORT },
            periodSeconds: 2,
            timeoutSeconds: 5,
            failureThreshold: 3,
          },
          resources: {
            requests: {
              cpu: `${Math.max(100, Math.round((cpuLimit * 1000) / 4))}m`,
              memory: `${Math.round(template.memoryMb / 2)}Mi`,
            },
            limits: { cpu: `${Math.round(cpuLimit * 1000)}m`, memory: `${template.memoryMb}Mi` },
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: false,
            capabilities: { drop: ['ALL'] },
          },
          volumeMounts: [
            { name: 'computer', mountPath: VOLUME_MOUNT },
            { name: 'tmp', mountPath: '/tmp' },
            { name: 'shm', mountPath: '/dev/shm' },
          ],
        },
      ],
    },
  };
}

/** A home volume: a warm pod's fresh one (no home key yet), or a computer's. */
export function homeClaim(template: WorkerPodTemplate, name: string, homeKey?: string, owner?: Owner): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name,
      namespace: template.namespace,
      labels: {
        [labels.name]: WORKER_APP,
        [labels.managedBy]: MANAGER,
        [labels.state]: homeKey ? 'home' : 'warm',
        ...(homeKey ? { [labels.homeKey]: homeKey } : {}),
        ...ownerLabels(owner),
      },
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: template.homeSize } },
      ...(template.storageClass ? { storageClassName: template.storageClass } : {}),
    },
  };
}

export function ownerLabels(owner: Owner | undefined): Record<string, string> {
  if (!owner) return {};
  return { [labels.computer]: owner.computerId, ...(owner.workspaceId ? { [labels.workspace]: owner.workspaceId } : {}) };
}

/** Ready: running, its worker answering the readiness probe, and not being deleted. */
export function podReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    pod.status?.phase === 'Running' &&
    (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

/**
 * Every container of the pod has ended: nothing of it uses the home any more. The kubelet removes the
 * object itself only at its next pod sync, seconds (once over 40 s) later; waiting for that gains nothing.
 */
export function containersEnded(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  const statuses = pod.status?.containerStatuses ?? [];
  // A deleted pod's container that could not start (its image, its config) never will.
  const ended = (status: V1ContainerStatus) =>
    status.state?.terminated !== undefined ||
    (!!pod.metadata?.deletionTimestamp && NOT_STARTING.has(status.state?.waiting?.reason ?? ''));
  return statuses.length > 0 && statuses.every(ended);
}

/** Waiting reasons of a container that is not starting (an image that cannot be had, a start that failed). */
export const NOT_STARTING = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'CrashLoopBackOff',
]);

/** Why a pod that served a computer cannot any more, or undefined while it still can. */
export function podGoneReason(pod: V1Pod, wasReady: boolean): string | undefined {
  if (pod.metadata?.deletionTimestamp) return 'its pod is being deleted';
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded')
    return `its pod ${phase === 'Failed' ? 'failed' : 'ended'}${pod.status?.reason ? ` (${pod.status.reason})` : ''}`;
  if (wasReady && !podReady(pod)) return 'its pod stopped answering (not ready)';
  return undefined;
}
