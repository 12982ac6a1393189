import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  NetworkingV1Api,
  RbacAuthorizationV1Api,
  Watch,
  type V1Pod,
} from '@kubernetes/client-node';
import { meViewSchema } from '@lazyboy/contracts';
import { repoRoot } from '@lazyboy/localstack';
import { ScriptedModelServer } from '@lazyboy/model';
import type { Browser, Page } from 'playwright-core';
import { COMPUTER_LOST_MESSAGE_IN_FLIGHT } from '../../apps/api/src/computers/computers.service.js';
import { leaseName } from '../../apps/api/src/computers/kubernetes/computer-leases.js';
import {
  labels as driverLabels,
  MANAGER,
  WORKER_APP,
  WORKER_SELECTOR,
} from '../../apps/api/src/computers/kubernetes/worker-pods.js';
import { launchChromium } from '../support/browser.js';
import { createAgentFromSidebar, sendMessage, signInThroughLoginPage } from '../support/web-walkthrough.js';
import { until } from '../support/index.js';
import { agentScript, LONG_JOB, PRESSED, startButtonPage, type ButtonPage } from '../support/button-agent.js';
import { CHART, startHelm, type Helm } from './chart-harness.js';

// helm/lazyboy installed for real on the project's one-node Kubernetes (scripts/k8s-node), with the five
// images build.sh makes (imported into the node's containerd by test-node.sh): install, the pods Ready, the
// web app and the first admin's sign-in reached from the host through the Services, the chart's
// ServiceAccount token held to its Role, a person in a real Chromium at the web Service's node port asking
// an agent to press a page's button (a warm worker pod binds; the click lands), the bound pod deleted under
// the agent's running command (the run ends saying so; the next message binds a new pod and works),
// an upgrade that keeps the Secrets and rolls what changed, and an uninstall that leaves exactly what it
// says it leaves. One namespace of its own, deleted at the end.

const run = promisify(execFile);
const RELEASE = 'lazyboy';
const IMAGES = ['worker', 'api', 'web', 'postgres', 'redis'] as const;
type ImageName = (typeof IMAGES)[number];
const ADMIN_EMAIL = 'admin@install.test';
/** The node's pod and service ranges (scripts/k8s-node/node-up.sh, 10-bridge.conflist). */
const NODE_CIDRS = ['10.88.0.0/24', '10.0.0.0/24'];
/** The node's address, where its node ports are, and the host's end of the link to it (node-up.sh). */
const NODE_IP = '10.99.0.1';
const HOST_IP = '10.99.0.254';

/** The node and the images loaded into it: the one `./lazyboy test` brought up, or one test-node.sh brings up. */
async function testNode(): Promise<{ kubeconfig: string; images: Record<ImageName, string>; startedHere: boolean }> {
  let kubeconfig = process.env.LAZYBOY_TEST_KUBECONFIG;
  let startedHere = false;
  if (!kubeconfig) {
    const { stdout } = await run('bash', [path.join(repoRoot, 'scripts/k8s-node/test-node.sh')], {
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [file, , started] = stdout.trim().split(/\s+/);
    kubeconfig = file!;
    startedHere = started === '1';
  }
  // test-node.sh names every image it loaded here (its line on stdout names only the worker's).
  const listing =
    process.env.LAZYBOY_TEST_IMAGES ?? path.join(process.env.LAZYBOY_K8S_NODE_DIR ?? '/var/tmp/lazyboy-k8s-node', 'images');
  const named = Object.fromEntries(
    readFileSync(listing, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  const missing = IMAGES.filter((image) => !named[image]);
  if (missing.length > 0) throw new Error(`${listing} names no ${missing.join(', ')} image: run scripts/k8s-node/test-node.sh`);
  return { kubeconfig, images: named as Record<ImageName, string>, startedHere };
}

/** Values as the chart takes them for one image name `localhost/lazyboy/<image>:<tag>`, loaded into the node. */
function imageValues(ref: string) {
  const colon = ref.lastIndexOf(':');
  return { repository: ref.slice(0, colon), tag: ref.slice(colon + 1), pullPolicy: 'Never' };
}

const ready = (pod: V1Pod) =>
  !pod.metadata?.deletionTimestamp && (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** An API call's HTTP status: 200 when it succeeded, else the code it failed with. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    const code = (error as { code?: unknown; statusCode?: unknown }).code ?? (error as { statusCode?: unknown }).statusCode;
    if (typeof code === 'number') return code;
    throw error;
  }
}

/** Whether a watch of `apiPath` opens (200) or is refused (its status), with the credentials of `kc`. */
function watchStatus(kc: KubeConfig, apiPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let controller: AbortController | undefined;
    let settled = false;
    const settle = (status: number) => {
      if (settled) return;
      settled = true;
      controller?.abort();
      resolve(status);
    };
    new Watch(kc)
      .watch(
        apiPath,
        {},
        () => settle(200),
        (error: unknown) => {
          const code = (error as { statusCode?: unknown } | null)?.statusCode;
          if (typeof code === 'number') settle(code);
          else if (!settled) reject(error instanceof Error ? error : new Error(`the watch of ${apiPath} ended without an event`));
        },
      )
      .then((c) => {
        controller = c;
        if (settled) c.abort();
      })
      .catch((error: unknown) => {
        const code = (error as { statusCode?: unknown }).statusCode;
        if (typeof code === 'number') settle(code);
        else reject(error as Error);
      });
  });
}

describe('helm/lazyboy on a real Kubernetes node', () => {
  let helm: Helm;
  let admin: KubeConfig;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  let startedHere = false;
  let images: Record<ImageName, string>;
  let helmEnv: Record<string, string>;
  let scratch: string;
  const namespace = `lazyboy-install-${randomBytes(4).toString('hex')}`;
  let values: Record<string, unknown>;
  let valuesFile: string;
  let site: ButtonPage;
  let model: ScriptedModelServer;
  let browser: Browser;

  beforeAll(async () => {
    const node = await testNode();
    images = node.images;
    startedHere = node.startedHere;
    admin = new KubeConfig();
    admin.loadFromFile(node.kubeconfig);
    core = admin.makeApiClient(CoreV1Api);
    apps = admin.makeApiClient(AppsV1Api);
    helm = await startHelm();
    helmEnv = { KUBECONFIG: node.kubeconfig };
    scratch = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-install-'));
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    site = await startButtonPage(HOST_IP);
    model = await new ScriptedModelServer({ host: HOST_IP, script: agentScript(() => site.url) }).start();
    browser = await launchChromium();
    // Fit for this node: the images loaded into it, its storage class, no cluster DNS, small requests.
    const small = { requests: { cpu: '25m', memory: '64Mi' }, limits: { memory: '1Gi' } };
    values = {
      serviceDiscovery: 'env',
      clusterCidrs: NODE_CIDRS,
      admin: { email: ADMIN_EMAIL },
      api: { image: imageValues(images.api), resources: small },
      // A node port: the person's browser comes from outside the cluster, as on a home server without an ingress.
      web: { image: imageValues(images.web), resources: small, service: { type: 'NodePort' } },
      // The host's model (the scripted one), serving the first admin's workspace.
      model: { provider: 'openai-chat', name: model.model, baseUrl: model.url },
      worker: {
        image: imageValues(images.worker),
        // The page is on the host's end of the link to the node, a private address.
        egress: { privateNetworks: 'allow' },
        warmPods: 1,
        cpus: 1,
        memoryMb: 1024,
        homeSize: '1Gi',
        storageClass: 'local-path',
      },
      postgresql: {
        image: imageValues(images.postgres),
        persistence: { size: '1Gi', storageClass: 'local-path' },
        resources: small,
      },
      redis: { image: imageValues(images.redis), persistence: { size: '256Mi', storageClass: 'local-path' }, resources: small },
    };
    valuesFile = path.join(scratch, 'values.json');
    writeFileSync(valuesFile, JSON.stringify(values));
  }, 30 * 60_000);

  afterAll(async () => {
    // Everything the test made is in its namespace (the release's record too: Helm keeps it in Secrets there).
    await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
    helm?.close();
    await browser?.close();
    await model?.close();
    await site?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    if (startedHere) await run('bash', [path.join(repoRoot, 'scripts/k8s-node/node-down.sh')], { timeout: 120_000 });
  }, 180_000);

  const helmIn = async (args: string[], timeoutMs = 60_000) => {
    const result = await helm.run([...args, '--namespace', namespace], helmEnv, timeoutMs);
    if (result.code !== 0) throw new Error(`helm ${args[0]} failed (${result.code}):\n${result.stderr}`);
    return result;
  };

  const pods = async (labelSelector: string) => (await core.listNamespacedPod({ namespace, labelSelector })).items;
  const componentPods = (component: string) =>
    pods(`app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/component=${component}`);
  const warmPods = () => pods(`${WORKER_SELECTOR},${driverLabels.state}=warm`);

  /** What each pod of the namespace is doing, and the last log lines of those not ready: a timeout's message. */
  async function podReport(): Promise<string> {
    const lines: string[] = [];
    for (const pod of (await core.listNamespacedPod({ namespace })).items) {
      const name = pod.metadata!.name!;
      const states = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].map((c) => {
        const state = c.state?.waiting
          ? `waiting ${c.state.waiting.reason}: ${c.state.waiting.message ?? ''}`
          : c.state?.terminated
            ? `terminated ${c.state.terminated.reason} (${c.state.terminated.exitCode})`
            : 'running';
        return `${c.name} ${state}${c.ready ? ' ready' : ''} restarts=${c.restartCount}`;
      });
      lines.push(`${name}: ${pod.status?.phase} ${ready(pod) ? 'Ready' : 'not ready'}; ${states.join('; ')}`);
      if (ready(pod)) continue;
      for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
        const log = await core
          .readNamespacedPodLog({ name, namespace, container: container.name, tailLines: 15 })
          .catch(() => '');
        if (log) lines.push(`  ${container.name}: ${String(log).trim().split('\n').join('\n    ')}`);
      }
    }
    return lines.join('\n');
  }

  /** Polls `probe` every second until it holds; a timeout's message says what the pods are doing. */
  async function untilHolds(what: string, probe: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    try {
      await until(what, probe, { timeoutMs, everyMs: 1000 });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${await podReport()}`, { cause: error });
    }
  }

  const serviceUrl = async (name: string, port: number) => {
    const service = await core.readNamespacedService({ name: `${RELEASE}-${name}`, namespace });
    return `http://${service.spec!.clusterIP}:${port}`;
  };
  const secretData = async (name: string) => {
    const data = (await core.readNamespacedSecret({ name, namespace })).data ?? {};
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
  };

  /** Signs in through the web Service with the first admin's token from the Secret; the session's `me`. */
  async function signIn(): Promise<unknown> {
    const web = await serviceUrl('web', 3101);
    const token = (await secretData(RELEASE))['admin-token']!;
    const login = await fetch(`${web}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: token }),
    });
    expect([login.status, await login.text().then((t) => (login.status === 200 ? 'ok' : t))]).toEqual([200, 'ok']);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const me = await fetch(`${web}/api/auth/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    return meViewSchema.parse(await me.json());
  }

  it('installs, and its api, web, postgres and redis pods and a warm worker pod become Ready', async () => {
    await helmIn(['install', RELEASE, CHART, '--values', valuesFile]);
    await untilHolds(
      "the chart's pods Ready",
      async () => {
        for (const component of ['api', 'web', 'postgresql', 'redis']) {
          const found = await componentPods(component);
          if (found.length !== 1 || !ready(found[0]!)) return false;
        }
        return (await warmPods()).some(ready);
      },
      240_000,
    );
    // The warm pod is the API's, from the values the chart gave it.
    const [warm] = (await warmPods()).filter(ready);
    expect(warm!.spec!.containers[0]!.image).toBe(images.worker);
    expect(warm!.metadata!.labels).toMatchObject({ [driverLabels.name]: WORKER_APP, [driverLabels.managedBy]: MANAGER });
    // Postgres and Redis run as their images' users, on volumes of the local-path class.
    const [postgres] = await componentPods('postgresql');
    expect(postgres!.spec!.containers[0]!.image).toBe(images.postgres);
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace })).items;
    const claim = (name: string) => claims.find((c) => c.metadata!.name === name);
    for (const name of [`data-${RELEASE}-postgresql-0`, `data-${RELEASE}-redis-0`]) {
      expect([name, claim(name)?.status?.phase, claim(name)?.spec?.storageClassName]).toEqual([name, 'Bound', 'local-path']);
    }
  }, 300_000);

  it('serves the web app through its Service, the API ready behind it, and signs the first admin in', async () => {
    const api = await serviceUrl('api', 3100);
    const readiness = await fetch(`${api}/readyz`);
    expect([readiness.status, ((await readiness.json()) as { status: string }).status]).toEqual([200, 'ready']);
    const web = await serviceUrl('web', 3101);
    const page = await fetch(`${web}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    // The web server passes /api through to the API: unsigned, it is refused there, not here.
    const anonymous = await fetch(`${web}/api/auth/me`);
    expect(anonymous.status).toBe(401);
    const wrong = await fetch(`${web}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: 'not-the-token-'.padEnd(40, 'x') }),
    });
    expect(wrong.status).toBe(401);
    const me = (await signIn()) as { user: { email: string; isAdmin: boolean }; workspaces: Array<{ name: string }> };
    expect(me.user).toMatchObject({ email: ADMIN_EMAIL, isAdmin: true });
    expect(me.workspaces.map((w) => w.name)).toContain('Home');
  }, 60_000);

  /** Each pod's phase and its containers' restarts, with why the last one ended (OOMKilled, a probe, …). */
  async function podRestarts(): Promise<string> {
    const { items } = await core.listNamespacedPod({ namespace });
    return items
      .map((pod) => {
        const containers = (pod.status?.containerStatuses ?? []).map((c) => {
          const ended = c.lastState?.terminated;
          return `${c.name} ready=${c.ready} restarts=${c.restartCount}${ended ? ` last ended ${ended.finishedAt?.toISOString()} ${ended.reason} (${ended.exitCode})` : ''}`;
        });
        return `${pod.metadata!.name} ${pod.status?.phase}: ${containers.join('; ')}`;
      })
      .join('\n');
  }

  /** The namespace's Warning events (failed probes, kills, evictions), oldest first. */
  async function namespaceWarnings(): Promise<string> {
    const { items } = await core.listNamespacedEvent({ namespace, fieldSelector: 'type=Warning' });
    return items
      .slice(-20)
      .map(
        (e) =>
          `${e.lastTimestamp?.toISOString() ?? ''} ${e.involvedObject.name} ${e.reason} ×${e.count ?? 1}: ${e.message ?? ''}`,
      )
      .join('\n');
  }

  /** `step`, failing with the last lines of the API pod's log (what a timeout cannot say). */
  async function withApiLog<T>(step: Promise<T>): Promise<T> {
    try {
      return await step;
    } catch (error) {
      const [api] = await componentPods('api');
      const log = api
        ? await core.readNamespacedPodLog({ name: api.metadata!.name!, namespace, container: 'api', tailLines: 40 }).catch(String)
        : 'no API pod';
      // A restarted API's log starts again: what the one before said last is where the failure is.
      const restarted = api?.status?.containerStatuses?.some((c) => c.name === 'api' && c.restartCount > 0);
      const before = restarted
        ? await core
            .readNamespacedPodLog({ name: api!.metadata!.name!, namespace, container: 'api', tailLines: 40, previous: true })
            .catch(String)
        : '';
      const told = model.requests.slice(-3).map((r) => JSON.stringify(r.messages.at(-1)).slice(0, 600));
      throw new Error(
        [
          (error as Error).message,
          String(log),
          ...(restarted ? [`the API container before its restart said:\n${String(before)}`] : []),
          `the pods:\n${(await podRestarts().catch(String)) as string}`,
          `the namespace's warnings:\n${(await namespaceWarnings().catch(String)) as string}`,
          `the model was told last:\n${told.join('\n')}`,
        ].join('\n'),
        { cause: error },
      );
    }
  }

  /** The page a person keeps open through the agent's tests: the web app at the web Service's node port. */
  let person: Page;
  const assistantSaid = (text: string) =>
    person.locator('[data-testid="message"][data-role="assistant"]').filter({ hasText: text });
  const boundPods = () => pods(`${WORKER_SELECTOR},${driverLabels.state}=bound`);
  /** The Lease of `computerId`'s binding: its holder (an API pod) and the bind fence it carries. */
  async function bindingLease(computerId: string): Promise<{ holder: string; bindFence: string }> {
    const lease = await admin.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: leaseName(computerId), namespace });
    return { holder: lease.spec!.holderIdentity!, bindFence: lease.metadata!.annotations!['lazyboy.dev/bind-fence']! };
  }

  it('through the web app at its node port a person asks an agent to press a button: a warm pod binds, the click lands, the answer and the live screen show', async () => {
    const web = await core.readNamespacedService({ name: `${RELEASE}-web`, namespace });
    const nodePort = web.spec!.ports!.find((p) => p.port === 3101)!.nodePort!;
    const warmBefore = (await warmPods()).filter(ready).map((p) => p.metadata!.name!);
    expect(warmBefore).toHaveLength(1);
    expect(await boundPods()).toEqual([]);

    const context = await browser.newContext({ baseURL: `http://${NODE_IP}:${nodePort}` });
    person = await context.newPage();
    await signInThroughLoginPage(person, ADMIN_EMAIL, (await secretData(RELEASE))['admin-token']!);
    await createAgentFromSidebar(person, 'Ada');
    await sendMessage(person, 'Press the button on the test page');
    // A warm pod is bound at once; the page, the click and the report come through the pod's Chromium.
    await withApiLog(assistantSaid(PRESSED).waitFor({ timeout: 120_000 }));
    expect(site.clicks()).toBe(1);

    const bound = await boundPods();
    expect(bound.map((p) => p.metadata!.name)).toEqual(warmBefore);
    const computerId = bound[0]!.metadata!.labels![driverLabels.computer]!;
    const [api] = await componentPods('api');
    expect(await bindingLease(computerId)).toEqual({ holder: api!.metadata!.name, bindFence: expect.stringMatching(/^\d+$/) });
    // The pool is refilled behind it.
    await untilHolds(
      'a new warm pod Ready',
      async () => (await warmPods()).some((p) => ready(p) && !warmBefore.includes(p.metadata!.name!)),
      120_000,
    );
    // The live screen: VNC from the pod through the web server's proxy to the page.
    await person.getByTestId('computer-toggle').click();
    await person.locator('[data-testid="computer-panel"][data-first-frame="true"]').waitFor({ timeout: 60_000 });
    await person.getByTestId('computer-toggle').click();
    await person.getByTestId('computer-panel').waitFor({ state: 'detached' });
  }, 300_000);

  it('deletes the bound pod under a running command: the run ends at once saying the computer went away, and the next message binds a new pod that works', async () => {
    const live = async () => (await boundPods()).filter((p) => !p.metadata!.deletionTimestamp);
    const [before] = await live();
    const podName = before!.metadata!.name!;
    const computerId = before!.metadata!.labels![driverLabels.computer]!;
    const fenceBefore = BigInt((await bindingLease(computerId)).bindFence);
    const jobsBefore = site.longJobs().length;
    await sendMessage(person, LONG_JOB);
    // In flight on the pod once the command has told the page's server so. Not the busy line: the run shows
    // the call as the model makes it, before it has its screen and sends the call, and a pod deleted before
    // that is no call in flight: the run rightly boots another pod and runs the command there.
    await withApiLog(
      until('the long job running on the pod', () => site.longJobs().length > jobsBefore, { timeoutMs: 60_000, everyMs: 200 }),
    );
    expect(site.longJobs().slice(jobsBefore)).toEqual([podName]);

    // Deleted as a person or an eviction deletes a pod, gracefully: the object stays, marked, until the
    // kubelet has stopped its container.
    const deletedAt = Date.now();
    await core.deleteNamespacedPod({ name: podName, namespace });
    await withApiLog(assistantSaid(COMPUTER_LOST_MESSAGE_IN_FLIGHT).waitFor({ timeout: 20_000 }));
    expect(Date.now() - deletedAt).toBeLessThan(20_000);
    // Ended by the loss, not by the shell's own wait running out.
    expect(await assistantSaid('still running').count()).toBe(0);
    await person.getByTestId('busy-line').waitFor({ state: 'detached', timeout: 10_000 });

    await sendMessage(person, 'Press the button on the test page once more');
    await withApiLog(
      until('a second report', async () => (await assistantSaid(PRESSED).count()) === 2, { timeoutMs: 180_000, everyMs: 500 }),
    );
    expect(site.clicks()).toBe(2);
    // A new pod of the same computer, bound by the API pod with a higher fence; the long job did not run again.
    const after = await live();
    expect(after.map((p) => [p.metadata!.name === podName, p.metadata!.labels![driverLabels.computer]])).toEqual([
      [false, computerId],
    ]);
    const [api] = await componentPods('api');
    const lease = await bindingLease(computerId);
    expect(lease.holder).toBe(api!.metadata!.name);
    expect(BigInt(lease.bindFence)).toBeGreaterThan(fenceBefore);
    expect(site.longJobs().length).toBe(jobsBefore + 1);
  }, 300_000);

  it("holds the chart's ServiceAccount to the pool driver's calls in its namespace: no Secrets, no other namespace", async () => {
    const { status } = await core.createNamespacedServiceAccountToken({
      name: `${RELEASE}-api`,
      namespace,
      // No audiences: the API server's own, as for a pod's token.
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const account = new KubeConfig();
    account.loadFromOptions({
      clusters: [{ name: 'node', server: admin.getCurrentCluster()!.server, skipTLSVerify: true }],
      users: [{ name: 'chart', token: status!.token }],
      contexts: [{ name: 'chart', cluster: 'node', user: 'chart', namespace }],
      currentContext: 'chart',
    });
    const asChart = account.makeApiClient(CoreV1Api);
    const leases = account.makeApiClient(CoordinationV1Api);
    const probe = `lazyboy-rbac-${randomBytes(3).toString('hex')}`;
    const pod = {
      metadata: { name: probe },
      spec: { containers: [{ name: 'pause', image: 'localhost/lazyboy/pause:1', imagePullPolicy: 'Never' }] },
    };
    const allowed = {
      'list pods': await statusOf(asChart.listNamespacedPod({ namespace })),
      'watch pods': await watchStatus(account, `/api/v1/namespaces/${namespace}/pods`),
      // Authorisation comes before a dry run's admission: a refused create would be 403.
      'create pods': await statusOf(asChart.createNamespacedPod({ namespace, body: pod, dryRun: 'All' })),
      // Allowed to delete: the pod's absence is what answers (404), not a refusal (403).
      'delete pods': await statusOf(asChart.deleteNamespacedPod({ name: probe, namespace })),
      'create leases': await statusOf(
        leases.createNamespacedLease({ namespace, body: { metadata: { name: probe }, spec: { holderIdentity: 'rbac-check' } } }),
      ),
      'delete leases': await statusOf(leases.deleteNamespacedLease({ name: probe, namespace })),
      'list pvcs': await statusOf(asChart.listNamespacedPersistentVolumeClaim({ namespace })),
    };
    expect(allowed).toEqual({
      'list pods': 200,
      'watch pods': 200,
      'create pods': 200,
      'delete pods': 404,
      'create leases': 200,
      'delete leases': 200,
      'list pvcs': 200,
    });
    const refused = {
      'read the Secret': await statusOf(asChart.readNamespacedSecret({ name: RELEASE, namespace })),
      'read the pool Secret': await statusOf(asChart.readNamespacedSecret({ name: `${RELEASE}-pool`, namespace })),
      'list secrets': await statusOf(asChart.listNamespacedSecret({ namespace })),
      'list pods in default': await statusOf(asChart.listNamespacedPod({ namespace: 'default' })),
      'watch pods in kube-system': await watchStatus(account, '/api/v1/namespaces/kube-system/pods'),
      'list pods everywhere': await statusOf(asChart.listPodForAllNamespaces()),
      'list namespaces': await statusOf(asChart.listNamespace()),
    };
    expect(Object.values(refused).every((code) => code === 403) ? 'all refused' : refused).toBe('all refused');
  }, 60_000);

  it('upgrades with a changed value: every Secret kept as it was, the API pods rolled, the rest left alone', async () => {
    const before = { main: await secretData(RELEASE), pool: await secretData(`${RELEASE}-pool`) };
    const uid = async (component: string) => (await componentPods(component)).map((p) => p.metadata!.uid).sort();
    const old = { api: await uid('api'), web: await uid('web'), postgresql: await uid('postgresql'), redis: await uid('redis') };
    const upgraded = path.join(scratch, 'values-upgrade.json');
    writeFileSync(upgraded, JSON.stringify({ ...values, api: { ...(values.api as object), logLevel: 'debug' } }));
    await helmIn(['upgrade', RELEASE, CHART, '--values', upgraded]);

    await untilHolds(
      'the API rolled out',
      async () => {
        const deployment = await apps.readNamespacedDeployment({ name: `${RELEASE}-api`, namespace });
        const current = await componentPods('api');
        return (
          (deployment.status?.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 1) &&
          deployment.status?.updatedReplicas === 1 &&
          current.length === 1 &&
          ready(current[0]!) &&
          !old.api.includes(current[0]!.metadata!.uid)
        );
      },
      180_000,
    );
    const [api] = await componentPods('api');
    expect(api!.spec!.containers[0]!.env!.find((e) => e.name === 'LAZYBOY_LOG_LEVEL')!.value).toBe('debug');
    expect({ main: await secretData(RELEASE), pool: await secretData(`${RELEASE}-pool`) }).toEqual(before);
    // Nothing else changed, so nothing else restarted: the databases kept their pods, and their data.
    expect({ web: await uid('web'), postgresql: await uid('postgresql'), redis: await uid('redis') }).toEqual({
      web: old.web,
      postgresql: old.postgresql,
      redis: old.redis,
    });
    expect(((await signIn()) as { user: { email: string } }).user.email).toBe(ADMIN_EMAIL);
    await untilHolds('a warm worker pod Ready after the upgrade', async () => (await warmPods()).some(ready), 60_000);
  }, 300_000);

  it("uninstalls: the servers, Services and worker pods go; the Secrets, the databases' volumes and the homes stay", async () => {
    // A computer's home as the driver labels one, beside the agent's: the uninstall must leave both.
    const home = `lazyboy-home-${randomBytes(6).toString('hex')}`;
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: {
        metadata: {
          name: home,
          labels: { [driverLabels.name]: WORKER_APP, [driverLabels.managedBy]: MANAGER, [driverLabels.state]: 'home' },
        },
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local-path', resources: { requests: { storage: '1Gi' } } },
      },
    });
    const warmClaims = async () =>
      (
        await core.listNamespacedPersistentVolumeClaim({
          namespace,
          labelSelector: `${WORKER_SELECTOR},${driverLabels.state}=warm`,
        })
      ).items;
    expect((await warmClaims()).length).toBeGreaterThan(0);
    // The agent's computer has one too, from the warm pod it bound.
    const homes = (
      await core.listNamespacedPersistentVolumeClaim({
        namespace,
        labelSelector: `${WORKER_SELECTOR},${driverLabels.state}=home`,
      })
    ).items.map((c) => c.metadata!.name!);
    expect(homes).toHaveLength(2);
    const secrets = { main: await secretData(RELEASE), pool: await secretData(`${RELEASE}-pool`) };

    // --wait: until the deleted objects are gone; the post-delete hook (the worker pods) runs after that.
    await helmIn(['uninstall', RELEASE, '--wait', '--timeout', '4m'], 300_000);

    const chart = `app.kubernetes.io/instance=${RELEASE}`;
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    const left = {
      deployments: (await apps.listNamespacedDeployment({ namespace })).items.length,
      statefulSets: (await apps.listNamespacedStatefulSet({ namespace })).items.length,
      services: (await core.listNamespacedService({ namespace })).items.length,
      configMaps: (await core.listNamespacedConfigMap({ namespace, labelSelector: chart })).items.length,
      serviceAccounts: (await core.listNamespacedServiceAccount({ namespace, labelSelector: chart })).items.length,
      roles: (await rbac.listNamespacedRole({ namespace })).items.length,
      roleBindings: (await rbac.listNamespacedRoleBinding({ namespace })).items.length,
      networkPolicies: (await admin.makeApiClient(NetworkingV1Api).listNamespacedNetworkPolicy({ namespace })).items.length,
      // The hook's Job deletes itself once it succeeded.
      jobs: (await admin.makeApiClient(BatchV1Api).listNamespacedJob({ namespace })).items.length,
    };
    expect(left).toEqual({
      deployments: 0,
      statefulSets: 0,
      services: 0,
      configMaps: 0,
      serviceAccounts: 0,
      roles: 0,
      roleBindings: 0,
      networkPolicies: 0,
      jobs: 0,
    });
    // The worker pods, which the API made, and their unused volumes, by the hook; within their 10 s grace.
    await untilHolds(
      'the worker pods gone',
      async () => (await pods(WORKER_SELECTOR)).length === 0 && (await componentPods('api')).length === 0,
      60_000,
    );
    expect(await warmClaims()).toEqual([]);
    expect((await helm.run(['list', '--namespace', namespace, '--all', '--short'], helmEnv)).stdout.trim()).toBe('');
    // Kept: both Secrets as they were (resource-policy keep), the databases' volumes and the computer's home.
    expect({ main: await secretData(RELEASE), pool: await secretData(`${RELEASE}-pool`) }).toEqual(secrets);
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace })).items.map((c) => c.metadata!.name).sort();
    expect(claims).toEqual([`data-${RELEASE}-postgresql-0`, `data-${RELEASE}-redis-0`, ...homes].sort());
  }, 360_000);
});
