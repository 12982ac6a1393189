import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@lazyboy/localstack';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget as PodDisruptionBudgetV1 } from 'kubernetes-models/policy/v1';
import { PodDisruptionBudget as PodDisruptionBudgetV1beta1 } from 'kubernetes-models/policy/v1beta1';
import { Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { parseAllDocuments } from 'yaml';

// The chart's static tests drive the real Helm (scripts/helm.sh) over helm/lazyboy: lint, render, and, for
// the Secrets that must survive upgrades, render against a stand-in for the Kubernetes API that answers
// the chart's `lookup`s. Nothing here talks to a cluster.

const run = promisify(execFile);

export const CHART = path.join(repoRoot, 'helm', 'lazyboy');
export const RELEASE = 'lazyboy';
export const NAMESPACE = 'lazyboy';

/** Values for one rendering, as values.yaml spells them (nested objects). */
export type Values = Record<string, unknown>;

/** A rendered manifest, as plain data. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Helm {
  /** Runs helm with `args` (never throws: the exit code is in the result); `timeoutMs` default 60 s. */
  run(args: string[], env?: Record<string, string>, timeoutMs?: number): Promise<HelmResult>;
  /** `helm lint --strict` of the chart with these values (and `args`, e.g. a Kubernetes version). */
  lint(values?: Values, args?: string[]): Promise<HelmResult>;
  /** `helm template` of the chart: the manifests, or a thrown error with Helm's message. */
  render(values?: Values, args?: string[], env?: Record<string, string>): Promise<Manifest[]>;
  /** `helm template`'s exit code and messages, for values that must be refused. */
  tryRender(values?: Values, args?: string[]): Promise<HelmResult>;
  /** The text NOTES.txt renders for an install with these values. */
  notes(values?: Values): Promise<string>;
  close(): void;
}

/** The project's Helm (fetched and cached by scripts/helm.sh) with a scratch home of its own. */
export async function startHelm(): Promise<Helm> {
  const { stdout } = await run('bash', [path.join(repoRoot, 'scripts', 'helm.sh')], { timeout: 300_000 });
  const binary = stdout.trim();
  const home = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-helm-'));
  // Helm's own configuration, cache and plugins: none of the machine's, and no cluster unless a test names one.
  const baseEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    HELM_CONFIG_HOME: path.join(home, 'config'),
    HELM_CACHE_HOME: path.join(home, 'cache'),
    HELM_DATA_HOME: path.join(home, 'data'),
    KUBECONFIG: path.join(home, 'no-kubeconfig'),
  };
  let files = 0;
  const valuesFile = (values: Values): string => {
    const file = path.join(home, `values-${++files}.json`);
    // JSON is YAML: Helm reads the file as values.yaml would be read.
    writeFileSync(file, JSON.stringify(values));
    return file;
  };
  const helmRun = async (args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<HelmResult> => {
    try {
      const { stdout: out, stderr } = await run(binary, args, {
        env: { ...baseEnv, ...env },
        timeout: timeoutMs,
        maxBuffer: 32 * 1024 * 1024,
      });
      return { code: 0, stdout: out, stderr };
    } catch (error) {
      const failed = error as { code?: number | string; stdout?: string; stderr?: string };
      return {
        code: typeof failed.code === 'number' ? failed.code : -1,
        stdout: failed.stdout ?? '',
        stderr: failed.stderr ?? String(error),
      };
    }
  };
  const template = (values: Values, args: string[], env?: Record<string, string>) =>
    helmRun(['template', RELEASE, CHART, '--namespace', NAMESPACE, '--values', valuesFile(values), ...args], env);

  return {
    run: helmRun,
    lint: (values = {}, args = []) =>
      helmRun(['lint', '--strict', CHART, '--namespace', NAMESPACE, '--values', valuesFile(values), ...args]),
    render: async (values = {}, args = [], env) => {
      const result = await template(values, args, env);
      if (result.code !== 0) throw new Error(`helm template failed (${result.code}):\n${result.stderr}`);
      return parseManifests(result.stdout);
    },
    tryRender: (values = {}, args = []) => template(values, args),
    notes: async (values = {}) => {
      // `helm template` leaves NOTES.txt out and `helm install --dry-run` wants a cluster: a copy of the
      // chart renders the same file as a template of its own, with the same engine and values.
      const copy = path.join(home, `chart-${++files}`);
      cpSync(CHART, copy, { recursive: true });
      const notes = readFileSync(path.join(copy, 'templates', 'NOTES.txt'), 'utf8');
      renameSync(path.join(copy, 'templates', 'NOTES.txt'), path.join(copy, 'templates', '_notes.tpl'));
      writeFileSync(path.join(copy, 'templates', '_notes.tpl'), `{{- define "test.notes" -}}\n${notes}\n{{- end -}}\n`);
      writeFileSync(
        path.join(copy, 'templates', 'notes.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "test.notes" . | quote }}\n',
      );
      const result = await helmRun([
        'template',
        RELEASE,
        copy,
        '--namespace',
        NAMESPACE,
        '--values',
        valuesFile(values),
        '--show-only',
        'templates/notes.yaml',
      ]);
      if (result.code !== 0) throw new Error(`rendering NOTES.txt failed:\n${result.stderr}`);
      const [doc] = parseManifests(result.stdout);
      return (doc as unknown as { data: { notes: string } }).data.notes;
    },
    close: () => rmSync(home, { recursive: true, force: true }),
  };
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
      return doc.toJSON() as Manifest | null;
    })
    .filter((doc): doc is Manifest => doc !== null);
}

/**
 * Each kind the chart renders, with the Kubernetes schema it is checked against (kubernetes-models: types,
 * required fields, enums, formats). A kind missing here fails the test: a new template needs its schema.
 */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudgetV1,
  'policy/v1beta1/PodDisruptionBudget': PodDisruptionBudgetV1beta1,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
};

/** The manifest's schema errors (an empty list when it is valid). */
export function schemaErrors(manifest: Manifest): string[] {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  const name = `${manifest.kind} ${manifest.metadata?.name}`;
  if (!Model) return [`${name}: no schema for ${manifest.apiVersion} ${manifest.kind} in this test`];
  try {
    new Model(manifest as never).validate();
    return [];
  } catch (error) {
    return [`${name}: ${(error as Error).message}`];
  }
}

// --------------------------------------------------------------------------------------------- lookups

/** A pod template's container, as the chart writes it. */
export interface Container {
  name: string;
  image: string;
  command?: string[];
  env?: EnvVar[];
  [field: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: { fieldPath: string };
  };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  volumes?: Array<{ name: string; configMap?: { name: string } }>;
  [field: string]: unknown;
}

export const find = (docs: Manifest[], kind: string, name: string): Manifest | undefined =>
  docs.find((doc) => doc.kind === kind && doc.metadata.name === name);

export function get(docs: Manifest[], kind: string, name: string): Manifest {
  const doc = find(docs, kind, name);
  if (!doc) throw new Error(`no ${kind} ${name} among: ${docs.map((d) => `${d.kind} ${d.metadata.name}`).join(', ')}`);
  return doc;
}

/** The pod template of a Deployment, StatefulSet or Job. */
export function podOf(workload: Manifest): { labels: Record<string, string>; spec: PodSpec } {
  const template = (workload.spec as { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } }).template;
  return { labels: template.metadata.labels, spec: template.spec };
}

export function containerOf(workload: Manifest, name: string): Container {
  const { spec } = podOf(workload);
  const container = [...spec.containers, ...(spec.initContainers ?? [])].find((c) => c.name === name);
  if (!container) throw new Error(`${workload.metadata.name} has no container ${name}`);
  return container;
}

/** Data of a rendered Secret, decoded. */
export function secretData(secret: Manifest): Record<string, string> {
  const data = (secret.data ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));
}

/**
 * A container's environment as the kubelet would give it: values with their `$(VAR)` references
 * expanded (earlier variables and `base`, the service links, as Kubernetes does), Secret keys read from
 * the rendered Secrets (`secrets` stands in for ones the chart does not render), the downward API from
 * `pod`. An optional key that is absent leaves the variable out; a required one that is absent is an
 * error. The container's own variables win over `base`'s.
 */
export function resolveEnv(
  container: Container,
  docs: Manifest[],
  pod: { name: string; namespace: string },
  secrets: Record<string, Record<string, string>> = {},
  base: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = { ...base };
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) {
      env[variable.name] = variable.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole);
      continue;
    }
    const from = variable.valueFrom;
    if (from?.secretKeyRef) {
      const { name, key, optional } = from.secretKeyRef;
      const rendered = find(docs, 'Secret', name);
      const data = rendered ? secretData(rendered) : secrets[name];
      if (!data) throw new Error(`${container.name}: ${variable.name} names the Secret ${name}, which is not there`);
      if (data[key] !== undefined) env[variable.name] = data[key];
      else if (!optional) throw new Error(`${container.name}: ${variable.name} names the key ${key}, which Secret ${name} lacks`);
      continue;
    }
    if (from?.fieldRef) {
      const field = from.fieldRef.fieldPath;
      if (field === 'metadata.name') env[variable.name] = pod.name;
      else if (field === 'metadata.namespace') env[variable.name] = pod.namespace;
      else throw new Error(`${container.name}: ${variable.name} reads ${field}, which this test does not stand in for`);
      continue;
    }
    throw new Error(`${container.name}: ${variable.name} has neither a value nor a source this test knows`);
  }
  return env;
}

// ------------------------------------------------------------------------------ a stand-in Kubernetes API

export interface FakeCluster {
  /** The environment that points Helm at it. */
  env: Record<string, string>;
  /** Secrets the cluster holds, by namespace/name. */
  secrets: Map<string, Manifest>;
  /** Paths Helm asked for. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Just enough of the Kubernetes API for `helm template --dry-run=server`, whose `lookup`s read Secrets
 * from it: the core group's discovery and GET of a Secret (404 when it holds none of that name).
 */
export async function startFakeCluster(): Promise<FakeCluster> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'lazyboy-fake-cluster-'));
  const secrets = new Map<string, Manifest>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(`${req.method} ${url.pathname}`);
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const notFound = () => answer(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
    if (url.pathname === '/api/v1') {
      return answer(200, {
        kind: 'APIResourceList',
        groupVersion: 'v1',
        resources: [{ name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs: ['get'] }],
      });
    }
    if (url.pathname === '/api') return answer(200, { kind: 'APIVersions', versions: ['v1'] });
    if (url.pathname === '/apis') return answer(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
    const secret = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(url.pathname);
    if (secret && req.method === 'GET') {
      const found = secrets.get(`${secret[1]}/${secret[2]}`);
      return found ? answer(200, found) : notFound();
    }
    notFound();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = path.join(home, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'fake', cluster: { server: `http://127.0.0.1:${port}` } }],
      users: [{ name: 'fake', user: { token: 'fake' } }],
      contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: NAMESPACE } }],
      'current-context': 'fake',
    }),
  );
  return {
    env: { KUBECONFIG: kubeconfig },
    secrets,
    requests,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(home, { recursive: true, force: true });
    },
  };
}
