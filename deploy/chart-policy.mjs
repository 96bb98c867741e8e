// The deployment policy over helm/crm's rendered manifests (run by deploy/validate-chart.sh):
//   node deploy/chart-policy.mjs [--ha file...] [--any file...]
// Every file: no container runs as root; runAsNonRoot, readOnlyRootFilesystem, no privilege escalation and
// capabilities drop ALL on every container; cpu and memory requests and limits everywhere; every Deployment has
// startup, readiness and liveness probes, a PodDisruptionBudget (when enabled) and its own ServiceAccount whose token
// is not mounted; with NetworkPolicies on, every pod is selected by a policy of both types and the release has a
// default deny; the operators' resources are consistent (one MongoDB user per service limited to its own database,
// KRaft Kafka with a node pool, the events KafkaTopic as configured). --ha files also need >= 3 replicas, HPAs,
// PDBs, spread constraints and replication factor 3. Writes <file>.core.yaml: the objects of built-in API groups,
// for kubernetes-validate (the operators' custom resources have no schema there and are checked here instead).
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const req = createRequire(join(import.meta.dirname, '../package.json'));
const yaml = req('yaml');
const BUILT_IN = /^(v1|apps\/v1|batch\/v1|policy\/v1|autoscaling\/v2|networking\.k8s\.io\/v1|rbac\.authorization\.k8s\.io\/v1)$/;
const errors = [];
let mode = '--any';
const files = [];
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith('--')) mode = arg;
  else files.push({ file: arg, ha: mode === '--ha' });
}

const matches = (selector = {}, labels = {}) => Object.entries(selector).every(([k, v]) => labels[k] === v);

for (const { file, ha } of files) {
  const docs = yaml
    .parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS())
    .filter(Boolean);
  const check = (ok, message) => ok || errors.push(`${file}: ${message}`);
  const kind = (k) => docs.filter((d) => d.kind === k);
  const configMap = kind('ConfigMap')[0]?.data ?? {};
  const policies = kind('NetworkPolicy');
  const workloads = [...kind('Deployment'), ...kind('Job')];
  const pdbEnabled = kind('PodDisruptionBudget').length > 0;

  for (const w of workloads) {
    const name = `${w.kind} ${w.metadata.name}`;
    const pod = w.spec.template;
    const psc = pod.spec.securityContext ?? {};
    check(psc.runAsNonRoot === true, `${name}: pod runAsNonRoot`);
    check(psc.runAsUser === undefined || psc.runAsUser > 0, `${name}: pod runs as uid 0`);
    check(pod.spec.automountServiceAccountToken === false, `${name}: mounts a service account token`);
    for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
      const sc = c.securityContext ?? {};
      const where = `${name}/${c.name}`;
      check(sc.runAsNonRoot === true || psc.runAsNonRoot === true, `${where}: runAsNonRoot`);
      check((sc.runAsUser ?? psc.runAsUser ?? 1) !== 0, `${where}: runs as root`);
      check(sc.readOnlyRootFilesystem === true, `${where}: readOnlyRootFilesystem`);
      check(sc.allowPrivilegeEscalation === false && sc.privileged !== true, `${where}: privilege escalation`);
      check(sc.capabilities?.drop?.includes('ALL'), `${where}: capabilities drop ALL`);
      for (const r of ['requests', 'limits']) for (const x of ['cpu', 'memory']) check(c.resources?.[r]?.[x], `${where}: no ${x} ${r}`);
      if (w.kind === 'Deployment')
        check(c.startupProbe && c.readinessProbe && c.livenessProbe, `${where}: startup/readiness/liveness probes`);
    }
    // Its own ServiceAccount (not shared with another workload), token off on the account too.
    const sa = kind('ServiceAccount').find((s) => s.metadata.name === pod.spec.serviceAccountName);
    const rendersAccounts = kind('ServiceAccount').length > 0;
    if (rendersAccounts) {
      check(sa, `${name}: ServiceAccount ${pod.spec.serviceAccountName} is not rendered`);
      check(sa?.automountServiceAccountToken === false, `${name}: its ServiceAccount automounts a token`);
      check(
        workloads.filter((o) => o.spec.template.spec.serviceAccountName === pod.spec.serviceAccountName).length === 1,
        `${name}: shares its ServiceAccount`,
      );
    }
    if (w.kind === 'Deployment' && pdbEnabled)
      check(
        kind('PodDisruptionBudget').some((p) => matches(p.spec.selector.matchLabels, pod.metadata.labels)),
        `${name}: no PodDisruptionBudget`,
      );
    if (policies.length > 0) {
      const selecting = policies.filter((p) => matches(p.spec.podSelector.matchLabels, pod.metadata.labels));
      check(
        selecting.some((p) => p.spec.policyTypes?.includes('Ingress')) && selecting.some((p) => p.spec.policyTypes?.includes('Egress')),
        `${name}: no NetworkPolicy covers both directions`,
      );
      check(
        selecting.some((p) => p.spec.policyTypes.length === 2 && !p.spec.ingress && !p.spec.egress),
        `${name}: no default-deny NetworkPolicy selects it`,
      );
      // Metrics reachable by Prometheus when the port exists.
      if (pod.spec.containers.some((c) => c.ports?.some((p) => p.name === 'metrics')))
        check(
          selecting.some((p) => p.spec.ingress?.some((i) => i.ports?.some((x) => x.port === 'metrics'))),
          `${name}: Prometheus is not allowed to the metrics port`,
        );
    }
    if (ha && w.kind === 'Deployment') {
      const hpa = kind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === w.metadata.name);
      check(hpa && hpa.spec.minReplicas >= 3, `${name}: HA needs an HPA with minReplicas >= 3`);
      check(
        (pod.spec.topologySpreadConstraints ?? []).some((t) => t.topologyKey === 'kubernetes.io/hostname'),
        `${name}: HA needs spreading over nodes`,
      );
    }
  }
  // Only the gateway and messaging's callback port are open to any source.
  for (const p of policies) {
    for (const rule of p.spec.ingress ?? []) {
      if (!rule.from) {
        const component = p.spec.podSelector.matchLabels?.['app.kubernetes.io/component'];
        check(
          ['gateway', 'messaging'].includes(component) && rule.ports?.every((x) => x.port === 'http'),
          `NetworkPolicy ${p.metadata.name}: open ingress beyond the public http ports`,
        );
      }
    }
  }
  for (const hpa of kind('HorizontalPodAutoscaler')) {
    for (const m of hpa.spec.metrics.filter((x) => x.type === 'Pods'))
      check(
        m.pods.metric.name === 'crm_kafka_consumer_lag_messages' && m.pods.target.type === 'AverageValue',
        `${hpa.metadata.name}: unexpected Pods metric`,
      );
  }

  // MongoDB Community Operator: a replica set, SCRAM, one user per Deployment, readWrite on its own database only.
  for (const m of kind('MongoDBCommunity')) {
    check(
      m.apiVersion === 'mongodbcommunity.mongodb.com/v1' && m.spec.type === 'ReplicaSet' && m.spec.members >= 3,
      `${m.metadata.name}: a replica set of 3 or more`,
    );
    check(m.spec.security?.authentication?.modes?.includes('SCRAM'), `${m.metadata.name}: SCRAM authentication`);
    check(m.spec.users.length === kind('Deployment').length, `${m.metadata.name}: one user per service`);
    for (const d of kind('Deployment')) {
      const component = d.spec.template.metadata.labels['app.kubernetes.io/component'];
      const c = d.spec.template.spec.containers[0];
      const dbName = c.env.find((e) => e.name.endsWith('_DB_NAME'))?.value;
      const user = m.spec.users.find((u) => u.name === component);
      check(
        user && user.roles.length === 1 && user.roles[0].name === 'readWrite' && user.roles[0].db === dbName,
        `${m.metadata.name}: user ${component} must have readWrite on ${dbName} only`,
      );
      check(
        user && kind('Secret').some((s) => s.metadata.name === user.passwordSecretRef.name && s.data?.password),
        `${m.metadata.name}: ${component}'s password Secret is not rendered`,
      );
      const ref = c.env.find((e) => e.name === 'MONGODB_URI')?.valueFrom?.secretKeyRef;
      check(
        ref?.name === `${m.metadata.name}-${user?.db}-${component}` && ref.key === 'connectionString.standard',
        `${d.metadata.name}: MONGODB_URI is not its user's connection string`,
      );
    }
  }
  // Strimzi: KRaft with a node pool of controllers+brokers, the events topic as configured.
  const rf = Number(configMap.EVENTS_TOPIC_REPLICATION_FACTOR);
  if (ha) check(rf >= 3, `replication factor ${rf} < 3 in HA`);
  for (const k of kind('Kafka')) {
    check(
      k.metadata.annotations?.['strimzi.io/kraft'] === 'enabled' && k.metadata.annotations?.['strimzi.io/node-pools'] === 'enabled',
      `${k.metadata.name}: KRaft with node pools`,
    );
    check(!k.spec.zookeeper, `${k.metadata.name}: no ZooKeeper`);
    const pools = kind('KafkaNodePool').filter((p) => p.metadata.labels?.['strimzi.io/cluster'] === k.metadata.name);
    check(
      pools.some((p) => p.spec.roles.includes('controller')) && pools.some((p) => p.spec.roles.includes('broker')),
      `${k.metadata.name}: node pools lack controllers or brokers`,
    );
    const brokers = pools.filter((p) => p.spec.roles.includes('broker')).reduce((n, p) => n + p.spec.replicas, 0);
    check(brokers >= 3 && brokers >= rf, `${k.metadata.name}: ${brokers} brokers for replication factor ${rf}`);
    check(configMap.KAFKA_BROKERS === `${k.metadata.name}-kafka-bootstrap:9093`, `KAFKA_BROKERS is not ${k.metadata.name}'s TLS bootstrap`);
    // Every listener takes TLS + SCRAM only; every service that uses Kafka logs in as its own KafkaUser, whose
    // password is the Secret key its KAFKA_SASL_PASSWORD reads, and trusts Strimzi's cluster CA.
    check(
      k.spec.kafka.listeners.every((l) => l.tls === true && l.authentication?.type === 'scram-sha-512'),
      `${k.metadata.name}: a listener without TLS and SCRAM`,
    );
    check(k.spec.entityOperator?.userOperator, `${k.metadata.name}: no User Operator for the KafkaUsers`);
    for (const d of kind('Deployment')) {
      const env = Object.fromEntries(d.spec.template.spec.containers[0].env.map((e) => [e.name, e]));
      if (!env.KAFKA_SASL_USERNAME) continue;
      const user = kind('KafkaUser').find((u) => u.metadata.name === env.KAFKA_SASL_USERNAME.value);
      const ref = env.KAFKA_SASL_PASSWORD?.valueFrom?.secretKeyRef;
      check(
        user?.metadata.labels['strimzi.io/cluster'] === k.metadata.name && user.spec.authentication.type === 'scram-sha-512',
        `${d.metadata.name}: no SCRAM KafkaUser ${env.KAFKA_SASL_USERNAME.value}`,
      );
      const from = user?.spec.authentication.password?.valueFrom?.secretKeyRef;
      check(
        ref && from?.name === ref.name && from?.key === ref.key,
        `${d.metadata.name}: its KafkaUser's password is not its KAFKA_SASL_PASSWORD`,
      );
      check(env.KAFKA_SSL?.value === 'true' && env.KAFKA_SSL_CA_FILE, `${d.metadata.name}: Kafka without TLS or without the cluster CA`);
    }
    const topic = kind('KafkaTopic').find((t) => t.spec.topicName === configMap.EVENTS_TOPIC);
    check(topic && topic.metadata.labels['strimzi.io/cluster'] === k.metadata.name, `no KafkaTopic for ${configMap.EVENTS_TOPIC}`);
    check(
      topic && topic.spec.partitions === Number(configMap.EVENTS_TOPIC_PARTITIONS) && topic.spec.replicas === rf,
      `KafkaTopic: partitions/replicas differ from the ConfigMap`,
    );
    check(topic && Number(topic.spec.config['min.insync.replicas']) === Math.min(2, rf), `KafkaTopic: min.insync.replicas`);
  }
  // External Kafka: the hook creates the topic with the same settings as the services.
  for (const job of kind('Job')) {
    check(
      /pre-install/.test(job.metadata.annotations?.['helm.sh/hook'] ?? '') && /pre-upgrade/.test(job.metadata.annotations['helm.sh/hook']),
      `${job.metadata.name}: not a pre-install/pre-upgrade hook`,
    );
    const env = Object.fromEntries(job.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]));
    for (const key of ['KAFKA_BROKERS', 'EVENTS_TOPIC', 'EVENTS_TOPIC_PARTITIONS', 'EVENTS_TOPIC_REPLICATION_FACTOR'])
      check(env[key] === configMap[key], `${job.metadata.name}: ${key} differs from the ConfigMap`);
  }
  const core = docs.filter((d) => BUILT_IN.test(d.apiVersion));
  writeFileSync(file.replace(/\.yaml$/, '.core.yaml'), core.map((d) => yaml.stringify(d)).join('---\n'));
  console.log(`${file}: policy OK (${docs.length} objects; ${docs.length - core.length} custom resources checked here)`);
}
if (errors.length) {
  console.error(errors.map((e) => `FAIL: ${e}`).join('\n'));
  process.exit(1);
}
