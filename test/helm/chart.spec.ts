import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { apiEnvSchema, webEnvSchema, type ApiEnv } from '@lazyboy/contracts';
import { repoRoot } from '@lazyboy/localstack';
import { parse as parseYaml } from 'yaml';
import {
  labels as driverLabels,
  MANAGER,
  WORKER_APP,
  WORKER_PORT,
  WORKER_SELECTOR,
} from '../../apps/api/src/computers/kubernetes/worker-pods.js';
import { codeOf, sourceFiles } from '../docs/source-scan.js';
import {
  CHART,
  containerOf,
  find,
  get,
  NAMESPACE,
  podOf,
  RELEASE,
  resolveEnv,
  schemaErrors,
  secretData,
  startFakeCluster,
  startHelm,
  type Container,
  type Helm,
  type Manifest,
  type Values,
} from './chart-harness.js';

// helm/lazyboy without a cluster: `helm lint --strict` and `helm template` over the defaults and the value
// sets a home server or a cluster uses, every rendered manifest checked against the Kubernetes schemas,
// and what the chart promises checked on what it renders — the API configured as its own schema and the
// kubernetes driver read it, the Role no wider than the driver's calls, Secrets generated once and kept,
// the PodDisruptionBudgets' API version, the network policies, and bad values refused.

const EXTERNAL_STORES: Values = {
  postgresql: { enabled: false },
  externalDatabase: { url: 'postgresql://lazyboy:db-password@db.home.internal:5432/lazyboy' },
  redis: { enabled: false },
  externalRedis: { url: 'redis://:redis-password@redis.home.internal:6379' },
};
const INGRESS_TLS: Values = {
  ingress: {
    enabled: true,
    className: 'traefik',
    host: 'lazyboy.example.com',
    annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
    tls: { enabled: true },
  },
  web: { trustedProxies: '10.42.0.0/16' },
};
const NO_WARM_PODS: Values = { worker: { warmPods: 0 } };
const RUNNER_SPLIT: Values = { api: { replicas: 2 }, runner: { replicas: 3 } };
/** A cluster without DNS (the project's test node), and a Secret the operator manages. */
const NO_DNS_OWN_SECRET: Values = { serviceDiscovery: 'env', secrets: { existingSecret: 'lazyboy-own' } };
const EVERYTHING_GIVEN: Values = {
  fullnameOverride: 'home',
  admin: { email: 'me@example.com', token: 'admin-token-'.padEnd(40, 'a') },
  secrets: {
    vaultKey: 'vault-key-'.padEnd(40, 'v'),
    internalSecret: 'internal-'.padEnd(40, 'i'),
    poolToken: 'pool-'.padEnd(40, 'p'),
  },
  model: { provider: 'openai-chat', name: 'gpt-test', baseUrl: 'https://models.example.com/v1', openaiApiKey: 'sk-test' },
  mail: { smtpUrl: 'smtps://user:pass@mail.example.com', from: 'lazyboy@example.com' },
  publicUrl: 'https://lazyboy.example.com/',
  secureCookie: 'always',
  api: { image: { tag: 'api1234', pullPolicy: 'Never' }, extraEnv: [{ name: 'LAZYBOY_SESSION_TTL_HOURS', value: '168' }] },
  web: { image: { tag: 'web1234', pullPolicy: 'Never' }, service: { type: 'NodePort', nodePort: 30101 } },
  worker: {
    image: { tag: 'worker1234', pullPolicy: 'Never' },
    cpus: 1.5,
    memoryMb: 2048,
    screenLimit: 4,
    homeSize: '5Gi',
    storageClass: 'local-path',
    egress: { privateNetworks: 'allow', allowedDomains: ['example.com', 'wikipedia.org'] },
  },
  postgresql: { persistence: { storageClass: 'local-path' }, password: 'db-pass', adminPassword: 'db-admin' },
  redis: { persistence: { storageClass: 'local-path' }, password: 'redis-pass' },
  networkPolicy: { worker: { ipv6: true, deniedCidrs: ['203.0.113.0/24', '2001:db8::/32'] } },
};

const VALUE_SETS: Array<[string, Values]> = [
  ['the defaults', {}],
  ['an external Postgres and Redis', EXTERNAL_STORES],
  ['an ingress with TLS', INGRESS_TLS],
  ['no warm pods', NO_WARM_PODS],
  ['runner replicas apart from the HTTP ones', RUNNER_SPLIT],
  ['no cluster DNS and an own Secret', NO_DNS_OWN_SECRET],
  ['every value given', EVERYTHING_GIVEN],
];

/** What an operator's own Secret (secrets.existingSecret) holds, for reading the pods' environment. */
const OWN_SECRET: Record<string, string> = {
  'vault-key': 'v'.repeat(40),
  'internal-secret': 'i'.repeat(40),
  'admin-token': 'a'.repeat(40),
  'pool-token': 'p'.repeat(40),
  'database-password': 'dbpass',
  'postgres-admin-password': 'dbadmin',
  'redis-password': 'redispass',
};
const STAND_IN_SECRETS = { 'lazyboy-own': OWN_SECRET };

let helm: Helm;
const rendered = new Map<string, Manifest[]>();

beforeAll(async () => {
  helm = await startHelm();
  for (const [name, values] of VALUE_SETS) rendered.set(name, await helm.render(values));
}, 300_000);

afterAll(() => helm?.close());

const docsOf = (set: string): Manifest[] => rendered.get(set)!;
/** Everything that runs pods: the servers, the databases and the uninstall hook's Job. */
const workloads = (docs: Manifest[]) => docs.filter((d) => ['Deployment', 'StatefulSet', 'Job'].includes(d.kind));
const fullname = (values: Values) => (values.fullnameOverride as string | undefined) ?? RELEASE;

/** The variables Kubernetes gives a pod created after these Services (service links), as the kubelet spells them. */
function serviceLinks(docs: Manifest[]): Record<string, string> {
  const env: Record<string, string> = {};
  docs
    .filter((d) => d.kind === 'Service')
    .forEach((service, i) => {
      const prefix = service.metadata.name.toUpperCase().replace(/-/g, '_');
      const ip = `10.43.0.${i + 10}`;
      const ports = (service.spec as { ports: Array<{ name?: string; port: number }> }).ports;
      env[`${prefix}_SERVICE_HOST`] = ip;
      env[`${prefix}_SERVICE_PORT`] = String(ports[0]!.port);
      env[`${prefix}_PORT`] = `tcp://${ip}:${ports[0]!.port}`;
      for (const port of ports) {
        if (port.name) env[`${prefix}_SERVICE_PORT_${port.name.toUpperCase()}`] = String(port.port);
        env[`${prefix}_PORT_${port.port}_TCP`] = `tcp://${ip}:${port.port}`;
      }
    });
  return env;
}

/** A container's environment as it would be in the pod: service links first, then its own variables. */
function podEnv(docs: Manifest[], workload: Manifest, container: Container): Record<string, string> {
  const { spec } = podOf(workload);
  const links = spec.enableServiceLinks === false ? {} : serviceLinks(docs);
  return resolveEnv(
    container,
    docs,
    { name: `${workload.metadata.name}-7d9f-x2k4q`, namespace: NAMESPACE },
    STAND_IN_SECRETS,
    links,
  );
}

/** The API's configuration, parsed by the API's own schema from the pod's environment (throws with the issues). */
function apiConfigOf(docs: Manifest[], deployment: Manifest): ApiEnv {
  const parsed = apiEnvSchema.safeParse(podEnv(docs, deployment, containerOf(deployment, 'api')));
  if (!parsed.success) throw new Error(`the API refuses its environment: ${JSON.stringify(parsed.error.issues)}`);
  return parsed.data;
}

describe('helm/lazyboy', () => {
  describe.each(VALUE_SETS)('with %s', (set, values) => {
    it('passes helm lint --strict', async () => {
      const lint = await helm.lint(values);
      expect(lint.stderr + lint.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
      expect(lint.code).toBe(0);
    });

    it('renders only valid Kubernetes objects, each once', () => {
      const docs = docsOf(set);
      expect(docs.length).toBeGreaterThan(8);
      expect(docs.flatMap(schemaErrors)).toEqual([]);
      const names = docs.map((d) => `${d.kind}/${d.metadata.name}`);
      expect(new Set(names).size).toBe(names.length);
    });

    it('refers only to what it renders (Secrets and their keys, ConfigMaps, service accounts, selected pods)', () => {
      const docs = docsOf(set);
      const own = (values.secrets as { existingSecret?: string } | undefined)?.existingSecret;
      const problems: string[] = [];
      const pods = workloads(docs).map((w) => ({ workload: w, ...podOf(w) }));
      for (const { workload, spec } of pods) {
        for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
          for (const variable of container.env ?? []) {
            const ref = variable.valueFrom?.secretKeyRef;
            if (!ref || ref.name === own) continue;
            const secret = find(docs, 'Secret', ref.name);
            if (!secret) problems.push(`${workload.metadata.name}/${container.name}: Secret ${ref.name} is not rendered`);
            else if (!ref.optional && !(ref.key in (secret.data as Record<string, string>)))
              problems.push(`${workload.metadata.name}/${container.name}: Secret ${ref.name} has no key ${ref.key}`);
          }
        }
        for (const volume of spec.volumes ?? []) {
          if (volume.configMap && !find(docs, 'ConfigMap', volume.configMap.name))
            problems.push(`${workload.metadata.name}: ConfigMap ${volume.configMap.name} is not rendered`);
        }
        if (spec.serviceAccountName && !find(docs, 'ServiceAccount', spec.serviceAccountName))
          problems.push(`${workload.metadata.name}: ServiceAccount ${spec.serviceAccountName} is not rendered`);
      }
      const selects = (selector: Record<string, string>) =>
        pods.some((pod) => Object.entries(selector).every(([k, v]) => pod.labels[k] === v));
      for (const doc of docs) {
        const spec = doc.spec as { selector?: Record<string, unknown> } | undefined;
        const selector =
          doc.kind === 'Service'
            ? (spec?.selector as Record<string, string>)
            : doc.kind === 'PodDisruptionBudget'
              ? ((spec?.selector as { matchLabels: Record<string, string> }).matchLabels ?? {})
              : undefined;
        if (selector && !selects(selector)) problems.push(`${doc.kind} ${doc.metadata.name} selects no pod of the chart`);
      }
      // A Job's selector is Kubernetes' own.
      for (const workload of workloads(docs).filter((w) => w.kind !== 'Job')) {
        const { matchLabels } = (workload.spec as { selector: { matchLabels: Record<string, string> } }).selector;
        const { labels } = podOf(workload);
        if (!Object.entries(matchLabels).every(([k, v]) => labels[k] === v))
          problems.push(`${workload.metadata.name}: its selector does not match its pods`);
      }
      expect(problems).toEqual([]);
    });

    it("gives every probe 5 s to answer, not the kubelet's 1 s (a busy node would take working pods out of their Services)", () => {
      const probes = workloads(docsOf(set)).flatMap((workload) =>
        podOf(workload).spec.containers.flatMap((container) =>
          (['readinessProbe', 'livenessProbe', 'startupProbe'] as const)
            .filter((kind) => container[kind])
            .map((kind) => [
              `${workload.metadata.name}/${container.name} ${kind}`,
              (container[kind] as { timeoutSeconds?: number }).timeoutSeconds,
            ]),
        ),
      );
      // The API and the web server at least (a release may use outside databases).
      expect(probes.length).toBeGreaterThanOrEqual(4);
      expect(probes.filter(([, timeout]) => timeout !== 5)).toEqual([]);
    });

    it("gives the API an environment the API's own schema accepts, as the kubernetes pool driver", () => {
      const docs = docsOf(set);
      const name = fullname(values);
      const config = apiConfigOf(docs, get(docs, 'Deployment', `${name}-api`));
      expect(config.LAZYBOY_POOL_DRIVER).toBe('kubernetes');
      expect(config.LAZYBOY_API_HOST).toBe('0.0.0.0');
      expect(config.LAZYBOY_K8S_NAMESPACE).toBe(NAMESPACE);
      // The pod's own name: every replica is a Lease holder of its own.
      expect(config.LAZYBOY_K8S_REPLICA_ID).toBe(`${name}-api-7d9f-x2k4q`);
      expect(config.LAZYBOY_APP_TOKEN!.length).toBeGreaterThanOrEqual(32);
      // The web server's half of the internal secret is the same one.
      const web = get(docs, 'Deployment', `${name}-web`);
      const webEnv = webEnvSchema.safeParse(podEnv(docs, web, containerOf(web, 'web')));
      if (!webEnv.success) throw new Error(`the web server refuses its environment: ${JSON.stringify(webEnv.error.issues)}`);
      expect(webEnv.data.LAZYBOY_INTERNAL_SECRET).toBe(config.LAZYBOY_INTERNAL_SECRET);
      expect(webEnv.data.LAZYBOY_WEB_HOST).toBe('0.0.0.0');
    });

    it('hands the worker pods the pool token through the Secret the driver names', () => {
      const docs = docsOf(set);
      const config = apiConfigOf(docs, get(docs, 'Deployment', `${fullname(values)}-api`));
      const own = (values.secrets as { existingSecret?: string } | undefined)?.existingSecret;
      const pool = own
        ? { 'pool-token': OWN_SECRET['pool-token']! }
        : secretData(get(docs, 'Secret', config.LAZYBOY_K8S_POOL_SECRET));
      expect(pool['pool-token']).toBe(config.LAZYBOY_POOL_TOKEN);
      expect(config.LAZYBOY_POOL_TOKEN!.length).toBeGreaterThanOrEqual(32);
      // The worker pods name that Secret alone: it holds nothing else.
      if (!own) expect(Object.keys(pool)).toEqual(['pool-token']);
    });

    it("runs the chart's own pods unprivileged: non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp", () => {
      const problems: string[] = [];
      for (const workload of workloads(docsOf(set))) {
        const { spec } = podOf(workload);
        const pod = spec.securityContext as { runAsNonRoot?: boolean; seccompProfile?: { type: string } };
        if (pod.runAsNonRoot !== true) problems.push(`${workload.metadata.name}: may run as root`);
        if (pod.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${workload.metadata.name}: no RuntimeDefault seccomp`);
        for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
          const sc = container.securityContext as { allowPrivilegeEscalation?: boolean; capabilities?: { drop?: string[] } };
          if (sc?.allowPrivilegeEscalation !== false) problems.push(`${workload.metadata.name}/${container.name}: may escalate`);
          if (!sc?.capabilities?.drop?.includes('ALL'))
            problems.push(`${workload.metadata.name}/${container.name}: keeps capabilities`);
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('the API', () => {
    it('is configured with every variable the kubernetes driver is configured with in its tests (driverConfig)', () => {
      // testing/test-kubernetes.ts `driverConfig` is the driver's configuration "as the chart would set it".
      const source = readFileSync(path.join(repoRoot, 'apps/api/src/testing/test-kubernetes.ts'), 'utf8');
      const block = /driverConfig: \(base, replica\) => \(\{([\s\S]*?)\}\),/.exec(source)?.[1];
      const driverVariables = [...(block ?? '').matchAll(/^\s*([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
      expect(driverVariables).toContain('LAZYBOY_K8S_WORKER_IMAGE');
      // And every kubernetes setting of the API's schema, all of which EVERYTHING_GIVEN sets.
      const k8sVariables = Object.keys(apiEnvSchema.shape).filter((name) => name.startsWith('LAZYBOY_K8S_'));
      const docs = docsOf('every value given');
      const api = get(docs, 'Deployment', 'home-api');
      const names = (containerOf(api, 'api').env ?? []).map((v) => v.name);
      expect([...new Set([...driverVariables, ...k8sVariables])].filter((n) => !names.includes(n))).toEqual([]);

      const config = apiConfigOf(docs, api);
      expect(config).toMatchObject({
        LAZYBOY_K8S_WORKER_IMAGE: 'localhost/lazyboy/worker:worker1234',
        LAZYBOY_K8S_IMAGE_PULL_POLICY: 'Never',
        LAZYBOY_K8S_WARM_PODS: 1,
        LAZYBOY_K8S_HOME_SIZE: '5Gi',
        LAZYBOY_K8S_STORAGE_CLASS: 'local-path',
        LAZYBOY_K8S_POOL_SECRET: 'home-pool',
        LAZYBOY_COMPUTER_CPUS: 1.5,
        LAZYBOY_COMPUTER_MEMORY_MB: 2048,
        TEAM_SCREEN_LIMIT: 4,
        LAZYBOY_EGRESS_PRIVATE_NETWORKS: 'allow',
        LAZYBOY_EGRESS_ALLOWED_DOMAINS: ['example.com', 'wikipedia.org'],
        LAZYBOY_VAULT_KEY: 'vault-key-'.padEnd(40, 'v'),
        LAZYBOY_APP_TOKEN: 'admin-token-'.padEnd(40, 'a'),
        LAZYBOY_ADMIN_EMAIL: 'me@example.com',
        LAZYBOY_PUBLIC_URL: 'https://lazyboy.example.com',
        LAZYBOY_SECURE_COOKIE: true,
        LAZYBOY_MAIL_FROM: 'lazyboy@example.com',
        LAZYBOY_SESSION_TTL_HOURS: 168,
        DATABASE_URL: 'postgresql://lazyboy:db-pass@home-postgresql:5432/lazyboy',
        REDIS_URL: 'redis://:redis-pass@home-redis:6379',
      });
      expect(config.LAZYBOY_SMTP_URL).toMatchObject({ secure: true, host: 'mail.example.com' });
      expect(config.LAZYBOY_MODEL_BLOCKED_NETWORKS).toEqual(['10.42.0.0/16', '10.43.0.0/16']);
      expect(podEnv(docs, api, containerOf(api, 'api'))).toMatchObject({
        LAZYBOY_MODEL_PROVIDER: 'openai-chat',
        LAZYBOY_MODEL: 'gpt-test',
        LAZYBOY_MODEL_BASE_URL: 'https://models.example.com/v1',
        OPENAI_API_KEY: 'sk-test',
      });
      expect(podEnv(docs, api, containerOf(api, 'api')).XAI_API_KEY).toBeUndefined();
    });

    it("names the pool's Secret lazyboy-pool for the release lazyboy, the driver's own default", () => {
      const docs = docsOf('the defaults');
      const config = apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api'));
      expect(config.LAZYBOY_K8S_POOL_SECRET).toBe(apiEnvSchema.shape.LAZYBOY_K8S_POOL_SECRET.parse(undefined));
      expect(config.LAZYBOY_K8S_POOL_SECRET).toBe('lazyboy-pool');
      expect(config.LAZYBOY_K8S_WARM_PODS).toBe(1);
      expect(config.LAZYBOY_SECURE_COOKIE).toBe(false);
      expect(config.LAZYBOY_PUBLIC_URL).toBeUndefined();
      expect(config.DATABASE_URL).toMatch(/^postgresql:\/\/lazyboy:[A-Za-z0-9]{32}@lazyboy-postgresql:5432\/lazyboy$/);
    });

    it('executes runs on its HTTP replicas, or only on runner replicas when there are some (LAZYBOY_RUNNER)', () => {
      const alone = docsOf('the defaults');
      expect(find(alone, 'Deployment', 'lazyboy-runner')).toBeUndefined();
      expect(apiConfigOf(alone, get(alone, 'Deployment', 'lazyboy-api')).LAZYBOY_RUNNER).toBe(true);

      const split = docsOf('runner replicas apart from the HTTP ones');
      const api = get(split, 'Deployment', 'lazyboy-api');
      const runner = get(split, 'Deployment', 'lazyboy-runner');
      expect((api.spec as { replicas: number }).replicas).toBe(2);
      expect((runner.spec as { replicas: number }).replicas).toBe(3);
      expect(apiConfigOf(split, api).LAZYBOY_RUNNER).toBe(false);
      const runnerConfig = apiConfigOf(split, runner);
      expect(runnerConfig.LAZYBOY_RUNNER).toBe(true);
      // A runner drives computers as well: the same driver, the same account, a Lease holder of its own.
      expect(runnerConfig.LAZYBOY_POOL_DRIVER).toBe('kubernetes');
      expect(runnerConfig.LAZYBOY_K8S_REPLICA_ID).toBe('lazyboy-runner-7d9f-x2k4q');
      expect(podOf(runner).spec.serviceAccountName).toBe('lazyboy-api');
      // No Service sends HTTP to a runner; its pods are in the API's network policy and PDB of their own.
      const services = split.filter((d) => d.kind === 'Service');
      expect(
        services.some(
          (s) => (s.spec as { selector: Record<string, string> }).selector['app.kubernetes.io/component'] === 'runner',
        ),
      ).toBe(false);
      expect(get(split, 'PodDisruptionBudget', 'lazyboy-runner')).toBeDefined();
    });

    it('migrates the database before it starts, with the database settings alone', () => {
      for (const set of ['the defaults', 'an external Postgres and Redis', 'runner replicas apart from the HTTP ones']) {
        const docs = docsOf(set);
        for (const workload of docs.filter((d) => d.kind === 'Deployment' && d.metadata.name !== 'lazyboy-web')) {
          const migrate = containerOf(workload, 'migrate');
          expect(migrate.command).toEqual(['prisma', 'migrate', 'deploy']);
          expect(migrate.image).toBe(containerOf(workload, 'api').image);
          const env = podEnv(docs, workload, migrate);
          expect(Object.keys(env).filter((name) => name.startsWith('LAZYBOY_') || name.startsWith('REDIS'))).toEqual([]);
          expect(env.DATABASE_URL).toBe(apiConfigOf(docs, workload).DATABASE_URL);
        }
      }
    });

    it('uses the external Postgres and Redis when told, and runs neither', () => {
      const docs = docsOf('an external Postgres and Redis');
      expect(docs.filter((d) => d.kind === 'StatefulSet')).toEqual([]);
      const config = apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api'));
      expect(config.DATABASE_URL).toBe('postgresql://lazyboy:db-password@db.home.internal:5432/lazyboy');
      expect(config.REDIS_URL).toBe('redis://:redis-password@redis.home.internal:6379');
      // The URLs hold passwords: they come from the Secret, not the pod spec.
      expect(JSON.stringify(get(docs, 'Deployment', 'lazyboy-api'))).not.toContain('db-password');
    });

    it('marks the session cookie Secure with the ingress TLS and gives the public URL', () => {
      const docs = docsOf('an ingress with TLS');
      const config = apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api'));
      expect(config.LAZYBOY_SECURE_COOKIE).toBe(true);
      expect(config.LAZYBOY_PUBLIC_URL).toBe('https://lazyboy.example.com');
      const ingress = get(docs, 'Ingress', 'lazyboy').spec as {
        ingressClassName: string;
        tls: Array<{ hosts: string[]; secretName: string }>;
        rules: Array<{
          host: string;
          http: { paths: Array<{ backend: { service: { name: string; port: { name: string } } } }> };
        }>;
      };
      expect(ingress.ingressClassName).toBe('traefik');
      expect(ingress.tls).toEqual([{ hosts: ['lazyboy.example.com'], secretName: 'lazyboy-tls' }]);
      expect(ingress.rules[0]!.http.paths[0]!.backend.service).toEqual({ name: 'lazyboy-web', port: { name: 'http' } });
      const web = get(docs, 'Deployment', 'lazyboy-web');
      expect(podEnv(docs, web, containerOf(web, 'web')).LAZYBOY_TRUSTED_PROXIES).toBe('10.42.0.0/16');
    });

    it('keeps the cookie plain over an ingress without TLS', async () => {
      const docs = await helm.render({ ingress: { enabled: true, host: 'lazyboy.home.lan' } });
      const config = apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api'));
      expect(config.LAZYBOY_SECURE_COOKIE).toBe(false);
      expect(config.LAZYBOY_PUBLIC_URL).toBe('http://lazyboy.home.lan');
      expect(get(docs, 'Ingress', 'lazyboy').spec).not.toHaveProperty('tls');
    });

    it('keeps no warm pods when told 0', () => {
      const docs = docsOf('no warm pods');
      expect(apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api')).LAZYBOY_K8S_WARM_PODS).toBe(0);
    });

    it("finds the chart's Services without cluster DNS through the service variables, which collide with no setting", () => {
      const docs = docsOf('no cluster DNS and an own Secret');
      const api = get(docs, 'Deployment', 'lazyboy-api');
      const web = get(docs, 'Deployment', 'lazyboy-web');
      expect(podOf(api).spec.enableServiceLinks).toBe(true);
      const links = serviceLinks(docs);
      // apiConfigOf parses the pod's whole environment, service links included (LAZYBOY_API_PORT=tcp://… among them).
      expect(links.LAZYBOY_API_PORT).toMatch(/^tcp:\/\//);
      const config = apiConfigOf(docs, api);
      expect(config.DATABASE_URL).toBe(`postgresql://lazyboy:dbpass@${links.LAZYBOY_POSTGRESQL_SERVICE_HOST}:5432/lazyboy`);
      expect(config.REDIS_URL).toBe(`redis://:redispass@${links.LAZYBOY_REDIS_SERVICE_HOST}:6379`);
      expect(config.LAZYBOY_API_PORT).toBe(3100);
      const webEnv = webEnvSchema.parse(podEnv(docs, web, containerOf(web, 'web')));
      expect(webEnv.LAZYBOY_API_URL).toBe(`http://${links.LAZYBOY_API_SERVICE_HOST}:3100`);
      expect(webEnv.LAZYBOY_WEB_PORT).toBe(3101);
      // With DNS the pods get no service links: they would only hand out the cluster's addresses.
      const withDns = docsOf('the defaults');
      for (const workload of workloads(withDns)) expect(podOf(workload).spec.enableServiceLinks).toBe(false);
      expect(
        webEnvSchema.parse(
          podEnv(
            withDns,
            get(withDns, 'Deployment', 'lazyboy-web'),
            containerOf(get(withDns, 'Deployment', 'lazyboy-web'), 'web'),
          ),
        ).LAZYBOY_API_URL,
      ).toBe('http://lazyboy-api:3100');
    });
  });

  describe('Postgres and Redis', () => {
    interface ImageConfig {
      Env: string[];
      Entrypoint?: string[];
      Cmd?: string[];
      ExposedPorts: Record<string, unknown>;
      User: string;
    }
    /** An image's own part of its config, as deploy/images/build.sh's table writes it. */
    function imageConfig(image: string): ImageConfig {
      const script = readFileSync(path.join(repoRoot, 'deploy/images/build.sh'), 'utf8');
      const block = new RegExp(`^  ${image}\\)\\n([\\s\\S]*?)\\n    ;;`, 'm').exec(script)?.[1];
      const json = /config='(\{[\s\S]*?\})'/.exec(block ?? '')?.[1];
      if (!json) throw new Error(`build.sh has no config for the ${image} image`);
      // The shell splices the system PATH in: the rest is JSON.
      return JSON.parse(json.replace(/'\$SYSTEM_PATH'/g, '/usr/bin:/bin')) as ImageConfig;
    }
    const appVersion = (parseYaml(readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion;
    const entrypoint = readFileSync(path.join(repoRoot, 'deploy/images/postgres-entrypoint.sh'), 'utf8');
    const securityOf = (workload: Manifest) =>
      podOf(workload).spec.securityContext as { runAsUser: number; runAsGroup: number; fsGroup: number };
    const portsOf = (container: Container) => (container.ports as Array<{ containerPort: number }>).map((p) => p.containerPort);
    const mountsOf = (container: Container) => container.volumeMounts as Array<{ name: string; mountPath: string }>;

    it("run the project's images by default, as the users and on the ports deploy/images/build.sh makes them with", () => {
      const docs = docsOf('the defaults');
      for (const [store, image] of [
        ['postgresql', 'postgres'],
        ['redis', 'redis'],
      ] as const) {
        const workload = get(docs, 'StatefulSet', `lazyboy-${store}`);
        const container = containerOf(workload, store);
        const config = imageConfig(image);
        expect(container.image).toBe(`localhost/lazyboy/${image}:${appVersion}`);
        const [uid, gid] = config.User.split(':').map(Number);
        expect(securityOf(workload)).toMatchObject({ runAsUser: uid, runAsGroup: gid, fsGroup: gid });
        expect(portsOf(container).map((port) => `${port}/tcp`)).toEqual(Object.keys(config.ExposedPorts));
      }
    });

    it("give Postgres its data directory below the volume's root and its init script where the entrypoint runs it", () => {
      const docs = docsOf('the defaults');
      const workload = get(docs, 'StatefulSet', 'lazyboy-postgresql');
      const container = containerOf(workload, 'postgresql');
      const env = podEnv(docs, workload, container);
      const imageData = imageConfig('postgres')
        .Env.find((e) => e.startsWith('PGDATA='))!
        .slice('PGDATA='.length);
      expect(env.PGDATA).toBe(imageData);
      const mounts = Object.fromEntries(mountsOf(container).map((m) => [m.name, m.mountPath]));
      expect(path.dirname(env.PGDATA!)).toBe(mounts.data);
      expect(mounts.init).toBe('/docker-entrypoint-initdb.d');
      expect(mounts.run).toBe('/var/run/postgresql');
      expect(entrypoint).toContain('/docker-entrypoint-initdb.d/*');
      expect(entrypoint).toContain('SOCKETS=/var/run/postgresql');
      // The init script makes the API's role with the password the API's DATABASE_URL carries.
      const init = get(docs, 'ConfigMap', 'lazyboy-postgresql-init').data as Record<string, string>;
      expect(init['10-lazyboy.sh']).toContain('CREATE EXTENSION IF NOT EXISTS vector;');
      const url = new URL(apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api')).DATABASE_URL);
      expect(env.LAZYBOY_DATABASE_PASSWORD).toBe(decodeURIComponent(url.password));
      expect(env.POSTGRES_USER).toBe('postgres');
      expect(env.POSTGRES_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(env.POSTGRES_PASSWORD).not.toBe(env.LAZYBOY_DATABASE_PASSWORD);
    });

    it("let Postgres take password logins from the cluster's ranges alone (POSTGRES_ALLOWED_CIDRS)", async () => {
      const docs = await helm.render({ clusterCidrs: ['10.88.0.0/24', '10.0.0.0/24'] });
      const workload = get(docs, 'StatefulSet', 'lazyboy-postgresql');
      expect(podEnv(docs, workload, containerOf(workload, 'postgresql')).POSTGRES_ALLOWED_CIDRS).toBe('10.88.0.0/24,10.0.0.0/24');
      expect(entrypoint).toContain('POSTGRES_ALLOWED_CIDRS');
    });

    it('give Redis its password on standard input and call it ready on a signed-in PING, the password in no command line', () => {
      const docs = docsOf('the defaults');
      const workload = get(docs, 'StatefulSet', 'lazyboy-redis');
      const container = containerOf(workload, 'redis');
      const env = podEnv(docs, workload, container);
      const url = new URL(apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api')).REDIS_URL);
      expect(env.REDIS_PASSWORD).toBe(decodeURIComponent(url.password));
      const script = container.command!.join(' ');
      expect(script).toContain('redis-server - --port 6379 --dir /data --appendonly yes');
      expect(script).toContain('requirepass $REDIS_PASSWORD');
      expect(Object.fromEntries(mountsOf(container).map((m) => [m.name, m.mountPath])).data).toBe('/data');
      const probe = (container.readinessProbe as { exec: { command: string[] } }).exec.command;
      expect(probe.join(' ')).toContain('REDISCLI_AUTH="$REDIS_PASSWORD" redis-cli');
      expect(JSON.stringify(workload)).not.toContain(env.REDIS_PASSWORD);
    });

    it('run the tag build.sh printed, or the official images when named', async () => {
      const tagged = await helm.render({ postgresql: { image: { tag: '69b24cb7d140b4f4', pullPolicy: 'Never' } } });
      const pg = containerOf(get(tagged, 'StatefulSet', 'lazyboy-postgresql'), 'postgresql');
      expect([pg.image, pg.imagePullPolicy]).toEqual(['localhost/lazyboy/postgres:69b24cb7d140b4f4', 'Never']);
      const docs = await helm.render({
        postgresql: { image: { repository: 'pgvector/pgvector', tag: 'pg15' } },
        redis: { image: { repository: 'redis', tag: '7-bookworm' } },
      });
      expect(containerOf(get(docs, 'StatefulSet', 'lazyboy-postgresql'), 'postgresql').image).toBe('pgvector/pgvector:pg15');
      expect(containerOf(get(docs, 'StatefulSet', 'lazyboy-redis'), 'redis').image).toBe('redis:7-bookworm');
    });
  });

  describe('RBAC', () => {
    /** The Kubernetes calls of the driver's code, as RBAC rules: `<group>/<resource>:<verb>`. */
    function driverCalls(): { calls: Set<string>; unknown: string[] } {
      const VERBS: Record<string, string> = {
        create: 'create',
        read: 'get',
        list: 'list',
        patch: 'patch',
        replace: 'update',
        delete: 'delete',
        deleteCollection: 'deletecollection',
      };
      const RESOURCES: Record<string, string> = {
        Pod: '/pods',
        PersistentVolumeClaim: '/persistentvolumeclaims',
        Lease: 'coordination.k8s.io/leases',
      };
      const PATHS: Record<string, string> = { pods: '/pods', persistentvolumeclaims: '/persistentvolumeclaims' };
      // The driver's code, not its tests (the specs and the suites they run, which use an admin's credentials).
      const files = sourceFiles(['apps/api/src/computers/kubernetes']).filter(
        (file) => !readFileSync(path.join(repoRoot, file), 'utf8').includes("from '@jest/globals'"),
      );
      const calls = new Set<string>();
      const unknown: string[] = [];
      for (const file of files) {
        const code = codeOf(readFileSync(path.join(repoRoot, file), 'utf8'));
        for (const [, verb, resource] of code.matchAll(
          /\b(create|read|list|patch|replace|delete|deleteCollection)Namespaced([A-Z][A-Za-z]*)\(/g,
        )) {
          const rule = RESOURCES[resource!];
          if (rule) calls.add(`${rule}:${VERBS[verb!]}`);
          else unknown.push(`${file}: ${verb}Namespaced${resource}`);
        }
        // An informer lists and then watches its path.
        for (const [, resource] of code.matchAll(/makeInformer\([^,]+,\s*`\/api\/v1\/namespaces\/\$\{[^}]+\}\/([a-z]+)`/g)) {
          const rule = PATHS[resource!];
          if (rule) ['list', 'watch'].forEach((verb) => calls.add(`${rule}:${verb}`));
          else unknown.push(`${file}: an informer on ${resource}`);
        }
        if (/\bnew Watch\(/.test(code)) unknown.push(`${file}: a Watch this test does not read`);
      }
      expect(files.length).toBeGreaterThan(3);
      return { calls, unknown };
    }

    it("allows exactly the calls the kubernetes driver's code makes", () => {
      const { calls, unknown } = driverCalls();
      expect(unknown).toEqual([]);
      expect(calls.size).toBeGreaterThan(10);
      const role = get(docsOf('the defaults'), 'Role', 'lazyboy-pool-driver');
      const rules = (role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>).flatMap((rule) =>
        rule.apiGroups.flatMap((group) =>
          rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${group}/${resource}:${verb}`)),
        ),
      );
      expect(new Set(rules).size).toBe(rules.length);
      expect([...rules].sort()).toEqual([...calls].sort());
    });

    it('grants no Secrets, nothing cluster-wide and no wildcard, and only to the API pods', () => {
      for (const [set] of VALUE_SETS) {
        const docs = docsOf(set);
        expect(docs.filter((d) => d.kind === 'ClusterRole' || d.kind === 'ClusterRoleBinding')).toEqual([]);
        const name = fullname(VALUE_SETS.find(([s]) => s === set)![1]);
        // The pool driver's, and the uninstall hook's (made for the hook alone, deleted with it).
        const roles = docs.filter((d) => d.kind === 'Role');
        expect(roles.map((r) => r.metadata.name).sort()).toEqual([`${name}-pool-driver`, `${name}-uninstall`]);
        for (const role of roles) {
          const rules = role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
          const granted = rules.flatMap((r) => [...r.apiGroups, ...r.resources, ...r.verbs]);
          expect(granted.filter((word) => /secret|\*|escalate|bind|impersonate/i.test(word))).toEqual([]);
        }
        for (const [account, role] of [
          ['api', 'pool-driver'],
          ['uninstall', 'uninstall'],
        ]) {
          const binding = get(docs, 'RoleBinding', `${name}-${role}`);
          expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: `${name}-${account}`, namespace: NAMESPACE }]);
          expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${name}-${role}` });
          expect(get(docs, 'ServiceAccount', `${name}-${account}`).automountServiceAccountToken).toBe(false);
        }
        for (const workload of workloads(docs)) {
          const { labels, spec } = podOf(workload);
          const component = labels['app.kubernetes.io/component']!;
          const account = ['api', 'runner'].includes(component) ? 'api' : component === 'uninstall' ? 'uninstall' : undefined;
          expect([workload.metadata.name, spec.automountServiceAccountToken]).toEqual([workload.metadata.name, !!account]);
          expect(spec.serviceAccountName).toBe(account && `${name}-${account}`);
        }
      }
    });
  });

  describe('the uninstall hook', () => {
    it('runs after the uninstall, as an account of its own, and stops the worker pods and their unused volumes alone', () => {
      const docs = docsOf('the defaults');
      const hooks = docs.filter((d) => d.metadata.annotations?.['helm.sh/hook']);
      expect(hooks.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
        [
          'Job/lazyboy-uninstall',
          'Role/lazyboy-uninstall',
          'RoleBinding/lazyboy-uninstall',
          'ServiceAccount/lazyboy-uninstall',
        ].sort(),
      );
      for (const hook of hooks) {
        expect(hook.metadata.annotations).toMatchObject({
          'helm.sh/hook': 'post-delete',
          'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
        });
      }
      // Its account exists before the Job runs.
      const weight = (d: Manifest) => Number(d.metadata.annotations!['helm.sh/hook-weight']);
      expect(Math.max(...hooks.filter((d) => d.kind !== 'Job').map(weight))).toBeLessThan(
        weight(get(docs, 'Job', 'lazyboy-uninstall')),
      );
      const job = get(docs, 'Job', 'lazyboy-uninstall');
      const container = containerOf(job, 'uninstall');
      expect(container.image).toBe(containerOf(get(docs, 'Deployment', 'lazyboy-api'), 'api').image);
      const env = podEnv(docs, job, container);
      // The driver's own selector of its pods and volumes, and the label its fresh volumes carry.
      expect(env.WORKERS).toBe(WORKER_SELECTOR);
      expect(container.command!.join('\n')).toContain(`\${process.env.WORKERS},${driverLabels.state}=warm`);
      // It waits for the API's pods (HTTP and runner replicas) by the labels they carry.
      const apiPods = podOf(get(docs, 'Deployment', 'lazyboy-api')).labels;
      expect(env.API_PODS).toBe(
        `app.kubernetes.io/name=${apiPods['app.kubernetes.io/name']},app.kubernetes.io/instance=${apiPods['app.kubernetes.io/instance']},app.kubernetes.io/component in (api,runner)`,
      );
      const role = get(docs, 'Role', 'lazyboy-uninstall').rules;
      expect(role).toEqual([
        { apiGroups: [''], resources: ['pods'], verbs: ['list', 'delete'] },
        { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['list', 'delete'] },
      ]);
    });
  });

  describe('Secrets', () => {
    it('are generated once and read back on every upgrade, never made anew (lookup)', async () => {
      const cluster = await startFakeCluster();
      try {
        const first = await helm.render({}, ['--dry-run=server'], cluster.env);
        // The chart asked the cluster for both of its Secrets: none there yet, so fresh ones.
        expect(cluster.requests).toEqual(
          expect.arrayContaining([
            `GET /api/v1/namespaces/${NAMESPACE}/secrets/lazyboy`,
            `GET /api/v1/namespaces/${NAMESPACE}/secrets/lazyboy-pool`,
          ]),
        );
        const secrets = first.filter((d) => d.kind === 'Secret');
        expect(secrets.map((s) => s.metadata.name).sort()).toEqual(['lazyboy', 'lazyboy-pool']);
        for (const secret of secrets) cluster.secrets.set(`${NAMESPACE}/${secret.metadata.name}`, secret);

        const upgrade = await helm.render({}, ['--dry-run=server', '--is-upgrade'], cluster.env);
        for (const secret of secrets) expect(get(upgrade, 'Secret', secret.metadata.name).data).toEqual(secret.data);
        // Without the cluster the same chart makes other ones: what the upgrade kept was read, not repeated.
        const offline = await helm.render({});
        expect(get(offline, 'Secret', 'lazyboy').data).not.toEqual(get(first, 'Secret', 'lazyboy').data);

        // A key the Secret lacks (a Postgres the release did not have before) is added; the rest stay.
        const older = structuredClone(get(first, 'Secret', 'lazyboy'));
        delete (older.data as Record<string, string>)['redis-password'];
        cluster.secrets.set(`${NAMESPACE}/lazyboy`, older);
        const added = secretData(get(await helm.render({}, ['--dry-run=server'], cluster.env), 'Secret', 'lazyboy'));
        expect(added['vault-key']).toBe(secretData(older)['vault-key']);
        expect(added['redis-password']).toMatch(/^[A-Za-z0-9]{32}$/);
      } finally {
        await cluster.close();
      }
    });

    it('take a value given in the values over the kept one, and stay after an uninstall', async () => {
      const cluster = await startFakeCluster();
      try {
        const first = await helm.render({}, ['--dry-run=server'], cluster.env);
        for (const secret of first.filter((d) => d.kind === 'Secret'))
          cluster.secrets.set(`${NAMESPACE}/${secret.metadata.name}`, secret);
        const given = await helm.render({ secrets: { poolToken: 'p'.repeat(32) } }, ['--dry-run=server'], cluster.env);
        expect(secretData(get(given, 'Secret', 'lazyboy-pool'))['pool-token']).toBe('p'.repeat(32));
        expect(get(given, 'Secret', 'lazyboy').data).toEqual(get(first, 'Secret', 'lazyboy').data);
      } finally {
        await cluster.close();
      }
      for (const secret of docsOf('the defaults').filter((d) => d.kind === 'Secret')) {
        expect(secret.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      }
      const generated = secretData(get(docsOf('the defaults'), 'Secret', 'lazyboy'));
      expect(Object.keys(generated).sort()).toEqual(
        ['admin-token', 'database-password', 'internal-secret', 'postgres-admin-password', 'redis-password', 'vault-key'].sort(),
      );
      for (const [key, value] of Object.entries(generated)) expect([key, value.length >= 32]).toEqual([key, true]);
    });

    it("are the operator's own when secrets.existingSecret names one: the chart makes none", () => {
      const docs = docsOf('no cluster DNS and an own Secret');
      expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
      const refs = workloads(docs).flatMap((w) =>
        [...podOf(w).spec.containers, ...(podOf(w).spec.initContainers ?? [])].flatMap((c) =>
          (c.env ?? []).flatMap((v) => (v.valueFrom?.secretKeyRef ? [v.valueFrom.secretKeyRef.name] : [])),
        ),
      );
      expect(new Set(refs)).toEqual(new Set(['lazyboy-own']));
      expect(apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api')).LAZYBOY_K8S_POOL_SECRET).toBe('lazyboy-own');
    });
  });

  describe('PodDisruptionBudgets', () => {
    const versions = (docs: Manifest[]) => docs.filter((d) => d.kind === 'PodDisruptionBudget').map((d) => d.apiVersion);

    it('are policy/v1beta1 on Kubernetes 1.20, which serves no policy/v1', async () => {
      const docs = await helm.render(RUNNER_SPLIT, ['--kube-version', '1.20.2']);
      expect(versions(docs)).toEqual(['policy/v1beta1', 'policy/v1beta1', 'policy/v1beta1']);
      expect(docs.flatMap(schemaErrors)).toEqual([]);
      // Not deprecated there yet: a strict lint for 1.20 passes (for a current Kubernetes it would not).
      expect((await helm.lint(RUNNER_SPLIT, ['--kube-version', '1.20.2'])).code).toBe(0);
    });

    it('are policy/v1 where the cluster serves policy/v1/PodDisruptionBudget, and on a current Kubernetes', async () => {
      const served = await helm.render({}, ['--kube-version', '1.20.2', '--api-versions', 'policy/v1/PodDisruptionBudget']);
      expect(versions(served)).toEqual(['policy/v1', 'policy/v1']);
      expect(versions(docsOf('the defaults'))).toEqual(['policy/v1', 'policy/v1']);
    });

    it('can be turned off', async () => {
      const docs = await helm.render({ api: { podDisruptionBudget: { enabled: false, maxUnavailable: 1 } } });
      expect(docs.filter((d) => d.kind === 'PodDisruptionBudget').map((d) => d.metadata.name)).toEqual(['lazyboy-web']);
    });
  });

  describe('NetworkPolicies', () => {
    interface Peer {
      podSelector?: { matchLabels?: Record<string, string> };
      namespaceSelector?: Record<string, unknown>;
      ipBlock?: { cidr: string; except?: string[] };
    }
    interface Rule {
      from?: Peer[];
      to?: Peer[];
      ports?: Array<{ protocol: string; port: number }>;
    }
    interface PolicySpec {
      podSelector: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
      policyTypes: string[];
      ingress?: Rule[];
      egress?: Rule[];
    }
    const policy = (docs: Manifest[], name: string) => get(docs, 'NetworkPolicy', name).spec as PolicySpec;
    const component = (peer: Peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'];

    it("select the worker pods by the driver's own labels and let in only the API, runner and web pods, on the worker port", () => {
      const worker = policy(docsOf('the defaults'), 'lazyboy-worker');
      expect(worker.podSelector.matchLabels).toEqual({ [driverLabels.name]: WORKER_APP, [driverLabels.managedBy]: MANAGER });
      expect(worker.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(worker.ingress).toHaveLength(1);
      const [rule] = worker.ingress!;
      expect(rule!.from!.map(component).sort()).toEqual(['api', 'runner', 'web']);
      expect(
        rule!.from!.every(
          (peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/instance'] === RELEASE && !peer.namespaceSelector,
        ),
      ).toBe(true);
      expect(rule!.ports).toEqual([{ protocol: 'TCP', port: WORKER_PORT }]);
    });

    it("let workers reach the internet and DNS, not the cluster's own ranges, link-local or (by default) the LAN", () => {
      const worker = policy(docsOf('the defaults'), 'lazyboy-worker');
      const [internet, dns] = worker.egress!;
      expect(internet!.ports).toBeUndefined();
      expect(internet!.to).toEqual([
        {
          ipBlock: {
            cidr: '0.0.0.0/0',
            except: [
              '10.42.0.0/16',
              '10.43.0.0/16',
              '169.254.0.0/16',
              '10.0.0.0/8',
              '172.16.0.0/12',
              '192.168.0.0/16',
              '100.64.0.0/10',
            ],
          },
        },
      ]);
      expect(dns!.to).toEqual([{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }]);
      expect(dns!.ports).toEqual([
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ]);
      expect(worker.egress).toHaveLength(2);

      // The LAN allowed: the cluster's ranges and link-local stay closed; extra ranges and IPv6 as given.
      const open = policy(docsOf('every value given'), 'home-worker').egress![0]!.to!;
      expect(open).toEqual([
        { ipBlock: { cidr: '0.0.0.0/0', except: ['10.42.0.0/16', '10.43.0.0/16', '169.254.0.0/16', '203.0.113.0/24'] } },
        { ipBlock: { cidr: '::/0', except: ['fe80::/10', '2001:db8::/32'] } },
      ]);
    });

    it('let the API be reached by the web pods alone, and Postgres and Redis by the API pods alone', () => {
      const docs = docsOf('the defaults');
      const api = policy(docs, 'lazyboy-api');
      expect(api.policyTypes).toEqual(['Ingress']);
      expect(api.podSelector.matchExpressions).toEqual(
        expect.arrayContaining([{ key: 'app.kubernetes.io/component', operator: 'In', values: ['api', 'runner'] }]),
      );
      expect(api.ingress!.map((r) => [r.from!.map(component), r.ports])).toEqual([[['web'], [{ protocol: 'TCP', port: 3100 }]]]);
      for (const [store, port] of [
        ['postgresql', 5432],
        ['redis', 6379],
      ] as const) {
        const spec = policy(docs, `lazyboy-${store}`);
        expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
        expect(spec.egress).toEqual([]);
        expect(spec.ingress!.map((r) => [r.from!.map(component).sort(), r.ports])).toEqual([
          [['api', 'runner'], [{ protocol: 'TCP', port }]],
        ]);
      }
      expect(find(docsOf('an external Postgres and Redis'), 'NetworkPolicy', 'lazyboy-postgresql')).toBeUndefined();
    });

    it('let the web pods reach the API and the worker pods (the viewers) and nothing else but DNS', () => {
      const web = policy(docsOf('the defaults'), 'lazyboy-web');
      expect(web.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 3101 }] }]);
      expect(
        web.egress!.map((r) => [
          r.to!.map((p) => component(p) ?? p.podSelector?.matchLabels?.[driverLabels.name] ?? 'dns'),
          r.ports!.map((p) => p.port),
        ]),
      ).toEqual([
        [['api'], [3100]],
        [[WORKER_APP], [WORKER_PORT]],
        [['dns'], [53, 53]],
      ]);
    });

    it('are left out when turned off', async () => {
      const docs = await helm.render({ networkPolicy: { enabled: false } });
      expect(docs.filter((d) => d.kind === 'NetworkPolicy')).toEqual([]);
    });
  });

  describe('bad values', () => {
    it.each<[string, Values, string]>([
      ['too many warm pods', { worker: { warmPods: 51 } }, 'worker.warmPods: Must be less than or equal to 50'],
      ['a negative warm pool', { worker: { warmPods: -1 } }, 'worker.warmPods: Must be greater than or equal to 0'],
      ['a misspelt value', { worker: { warmpods: 2 } }, 'worker: Additional property warmpods is not allowed'],
      ['an unknown section', { workers: {} }, 'Additional property workers is not allowed'],
      [
        'a pull policy Kubernetes lacks',
        { worker: { image: { pullPolicy: 'Sometimes' } } },
        'worker.image.pullPolicy must be one of the following',
      ],
      [
        'a short vault key',
        { secrets: { vaultKey: 'short' } },
        'secrets.vaultKey: String length must be greater than or equal to 32',
      ],
      ['a home size the driver refuses', { worker: { homeSize: '10GB' } }, 'worker.homeSize: Does not match pattern'],
      ['a CIDR that is none', { clusterCidrs: ['10.0.0.300/8'] }, 'clusterCidrs.0: Does not match pattern'],
      ['replicas as text', { api: { replicas: 'two' } }, 'api.replicas: Invalid type. Expected: integer, given: string'],
      [
        'a password that breaks the URL',
        { postgresql: { password: 'p@ss/word' } },
        'postgresql.password: Does not match pattern',
      ],
      ['an unknown signup policy', { instance: { signup: 'everyone' } }, 'instance.signup must be one of the following'],
    ])('refuses %s with a message naming the value', async (_what, values, message) => {
      const result = await helm.tryRender(values);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("values don't meet the specifications of the schema");
      expect(result.stderr).toContain(message);
    });

    it('fails helm lint --strict too', async () => {
      const lint = await helm.lint({ worker: { warmPods: 51 } });
      expect(lint.code).not.toBe(0);
      expect(lint.stdout + lint.stderr).toContain('worker.warmPods: Must be less than or equal to 50');
    });

    it.each<[string, Values, string]>([
      ['no database at all', { postgresql: { enabled: false } }, 'postgresql.enabled is false: set externalDatabase.url'],
      ['no Redis at all', { redis: { enabled: false } }, 'redis.enabled is false: set externalRedis.url'],
      ['an ingress without a host', { ingress: { enabled: true } }, 'ingress.enabled is true: set ingress.host'],
      [
        'mail without a sender',
        { mail: { smtpUrl: 'smtp://mail.example.com' }, publicUrl: 'https://x.example.com' },
        'set mail.from',
      ],
      ['mail without a public URL', { mail: { smtpUrl: 'smtp://mail.example.com', from: 'a@example.com' } }, 'set publicUrl'],
    ])('refuses %s, saying what to set', async (_what, values, message) => {
      const result = await helm.tryRender(values);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(message);
    });
  });

  describe('helm/README.md', () => {
    it('shows values the chart accepts, which do what it says', async () => {
      const readme = readFileSync(path.join(repoRoot, 'helm', 'README.md'), 'utf8');
      const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(example).toBeDefined();
      const values = parseYaml(example!.replace(/<(api|web|worker|postgres|redis) tag>/g, '$1-tag')) as Values;
      const lint = await helm.lint(values);
      expect([lint.code, lint.stderr]).toEqual([0, '']);
      const docs = await helm.render(values);
      expect(docs.flatMap(schemaErrors)).toEqual([]);
      const config = apiConfigOf(docs, get(docs, 'Deployment', 'lazyboy-api'));
      expect(config).toMatchObject({
        LAZYBOY_K8S_WORKER_IMAGE: 'localhost/lazyboy/worker:worker-tag',
        LAZYBOY_K8S_IMAGE_PULL_POLICY: 'Never',
        LAZYBOY_K8S_STORAGE_CLASS: 'local-path',
        LAZYBOY_SECURE_COOKIE: true,
        LAZYBOY_PUBLIC_URL: 'https://lazyboy.home.example',
      });
      for (const [store, image] of [
        ['postgresql', 'postgres'],
        ['redis', 'redis'],
      ]) {
        const container = containerOf(get(docs, 'StatefulSet', `lazyboy-${store}`), store!);
        expect([container.image, container.imagePullPolicy]).toEqual([`localhost/lazyboy/${image}:${image}-tag`, 'Never']);
      }
      expect(readme).toContain("kubectl --namespace lazyboy get secret lazyboy --output jsonpath='{.data.admin-token}'");
    });
  });

  describe('NOTES.txt', () => {
    it('says how to sign in: the URL, the email and how to read the generated token', async () => {
      const notes = await helm.notes();
      expect(notes).toContain('kubectl --namespace lazyboy port-forward service/lazyboy-web 3101:3101');
      expect(notes).toContain('http://127.0.0.1:3101');
      expect(notes).toContain('Email:    admin@lazyboy.local');
      expect(notes).toContain(
        "kubectl --namespace lazyboy get secret lazyboy \\\n    --output jsonpath='{.data.admin-token}' | base64 --decode",
      );
      // The token's key is the one the API's LAZYBOY_APP_TOKEN comes from.
      const api = containerOf(get(docsOf('the defaults'), 'Deployment', 'lazyboy-api'), 'api');
      expect(api.env!.find((v) => v.name === 'LAZYBOY_APP_TOKEN')!.valueFrom!.secretKeyRef).toEqual({
        name: 'lazyboy',
        key: 'admin-token',
      });
    });

    it('names the ingress URL when there is one', async () => {
      const notes = await helm.notes(INGRESS_TLS);
      expect(notes).toContain('Open https://lazyboy.example.com');
      expect(notes).not.toContain('port-forward');
    });
  });
});
