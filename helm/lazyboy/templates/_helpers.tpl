{{/*
Names, labels and the pieces several templates share. Resource names are <fullname>-<part>; the chart's own
pods carry app.kubernetes.io/name=<name>, the worker pods the API creates carry the driver's fixed labels
(lazyboy.workerSelector), so no selector of one can pick the other.
*/}}

{{- define "lazyboy.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's name, or <release>-<chart> when the release name does not contain the chart's. */}}
{{- define "lazyboy.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "lazyboy.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "lazyboy.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: (dict "root" $ "component" "api"). */}}
{{- define "lazyboy.selectorLabels" -}}
app.kubernetes.io/name: {{ include "lazyboy.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The labels of the worker pods and home volumes the API's kubernetes driver creates
(apps/api/src/computers/kubernetes/worker-pods.ts: WORKER_APP, MANAGER). They are fixed in the driver,
not per release: run one release per namespace.
*/}}
{{- define "lazyboy.workerSelector" -}}
app.kubernetes.io/name: lazyboy-worker
app.kubernetes.io/managed-by: lazyboy-api
{{- end }}

{{/* The worker's control port (worker-pods.ts WORKER_PORT, the image's LAZYBOY_WORKER_PORT). */}}
{{- define "lazyboy.workerPort" -}}3102{{- end }}

{{- define "lazyboy.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) }}
{{- end }}

{{- define "lazyboy.serviceAccountName" -}}
{{- printf "%s-api" (include "lazyboy.fullname" .) }}
{{- end }}

{{/* The Secret of the API's and web server's secrets: the chart's, or the one the operator manages. */}}
{{- define "lazyboy.secretName" -}}
{{- default (include "lazyboy.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/*
The Secret whose `pool-token` key the worker pods get (LAZYBOY_K8S_POOL_SECRET): a Secret of its own, so
that the worker pods name nothing else, unless the operator manages one Secret for everything.
*/}}
{{- define "lazyboy.poolSecretName" -}}
{{- if .Values.secrets.existingSecret }}
{{- .Values.secrets.existingSecret }}
{{- else }}
{{- printf "%s-pool" (include "lazyboy.fullname" .) }}
{{- end }}
{{- end }}

{{/*
One key of a generated Secret, base64: the value given in values.yaml, else the one the Secret already
holds in the cluster (so that an upgrade never changes a key the data was encrypted with), else a new
random one. (dict "given" <string> "existing" <the Secret's data or nil> "key" <key> "length" <int>)
*/}}
{{- define "lazyboy.secretValue" -}}
{{- if .given }}
{{- .given | b64enc }}
{{- else if and .existing (hasKey .existing .key) }}
{{- index .existing .key }}
{{- else }}
{{- randAlphaNum (int .length) | b64enc }}
{{- end }}
{{- end }}

{{/*
How a pod reaches one of the chart's Services: its DNS name, or, without cluster DNS, the address
Kubernetes puts in the environment of pods created after the Service (service links). (dict "root" $
"part" "api")
*/}}
{{- define "lazyboy.serviceHost" -}}
{{- $service := printf "%s-%s" (include "lazyboy.fullname" .root) .part }}
{{- if eq .root.Values.serviceDiscovery "env" }}
{{- printf "$(%s_SERVICE_HOST)" ($service | upper | replace "-" "_") }}
{{- else }}
{{- $service }}
{{- end }}
{{- end }}

{{/* Service links are what serviceDiscovery=env reads; otherwise they only hand pods the cluster's addresses. */}}
{{- define "lazyboy.enableServiceLinks" -}}
{{- if eq .Values.serviceDiscovery "env" }}true{{ else }}false{{ end }}
{{- end }}

{{/* The session cookie is Secure when people reach the web app over HTTPS: the ingress's TLS, unless told. */}}
{{- define "lazyboy.secureCookie" -}}
{{- if eq .Values.secureCookie "always" }}true
{{- else if eq .Values.secureCookie "never" }}false
{{- else if and .Values.ingress.enabled .Values.ingress.tls.enabled }}true
{{- else }}false
{{- end }}
{{- end }}

{{/* The web app's origin as people reach it: publicUrl, else the ingress's host. Empty when unknown. */}}
{{- define "lazyboy.publicUrl" -}}
{{- if .Values.publicUrl }}
{{- .Values.publicUrl | trimSuffix "/" }}
{{- else if and .Values.ingress.enabled .Values.ingress.host }}
{{- printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host }}
{{- end }}
{{- end }}

{{/* Pod security of the chart's own servers: the images' user lazyboy (uid 1000), nothing more. */}}
{{- define "lazyboy.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "lazyboy.containerSecurityContext" -}}
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
{{- end }}

{{/* DATABASE_URL (and the password it is made of, for the chart's Postgres): the API and its migrations. */}}
{{- define "lazyboy.databaseEnv" -}}
{{- if .Values.postgresql.enabled -}}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "lazyboy.secretName" . }}
      key: database-password
- name: DATABASE_URL
  value: {{ printf "postgresql://%s:$(DATABASE_PASSWORD)@%s:5432/%s" .Values.postgresql.username (include "lazyboy.serviceHost" (dict "root" . "part" "postgresql")) .Values.postgresql.database | quote }}
{{- else -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "lazyboy.secretName" . }}
      key: database-url
{{- end }}
{{- end }}

{{/* REDIS_URL (and the password it is made of, for the chart's Redis). */}}
{{- define "lazyboy.redisEnv" -}}
{{- if .Values.redis.enabled -}}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "lazyboy.secretName" . }}
      key: redis-password
- name: REDIS_URL
  value: {{ printf "redis://:$(REDIS_PASSWORD)@%s:6379" (include "lazyboy.serviceHost" (dict "root" . "part" "redis")) | quote }}
{{- else -}}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "lazyboy.secretName" . }}
      key: redis-url
{{- end }}
{{- end }}

{{/* The API's and the runner's pods, as NetworkPolicy peers. */}}
{{- define "lazyboy.apiPeers" -}}
- podSelector:
    matchLabels:
      {{- include "lazyboy.selectorLabels" (dict "root" . "component" "api") | nindent 6 }}
- podSelector:
    matchLabels:
      {{- include "lazyboy.selectorLabels" (dict "root" . "component" "runner") | nindent 6 }}
{{- end }}

{{/* Name lookups, to the cluster's DNS (networkPolicy.dns.to). */}}
{{- define "lazyboy.dnsEgress" -}}
- to:
    {{- toYaml .Values.networkPolicy.dns.to | nindent 4 }}
  ports:
    - protocol: UDP
      port: 53
    - protocol: TCP
      port: 53
{{- end }}

{{/*
Settings the values cannot check on their own (values.schema.json checks each value): refused with a
message naming the value to set.
*/}}
{{- define "lazyboy.validate" -}}
{{- if and (not .Values.postgresql.enabled) (not .Values.externalDatabase.url) (not .Values.secrets.existingSecret) }}
{{- fail "postgresql.enabled is false: set externalDatabase.url (postgresql://user:password@host:5432/db, with pgvector installed), or a database-url key in secrets.existingSecret" }}
{{- end }}
{{- if and (not .Values.redis.enabled) (not .Values.externalRedis.url) (not .Values.secrets.existingSecret) }}
{{- fail "redis.enabled is false: set externalRedis.url (redis://[:password@]host:6379), or a redis-url key in secrets.existingSecret" }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.host) }}
{{- fail "ingress.enabled is true: set ingress.host (the name people reach the web app by)" }}
{{- end }}
{{- if and .Values.mail.smtpUrl (not .Values.mail.from) }}
{{- fail "mail.smtpUrl is set: set mail.from (the address mails come from) too" }}
{{- end }}
{{- if and .Values.mail.smtpUrl (not (include "lazyboy.publicUrl" .)) }}
{{- fail "mail.smtpUrl is set: set publicUrl (or an ingress host), the origin mailed links start with" }}
{{- end }}
{{- end }}
