import { kafkaFromEnv } from '@crm/shared';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterEnv, clusterKafkaEnv, helm, kubectl, kubectlJson, REPO_ROOT } from './support/cluster';

const CHART = resolve(REPO_ROOT, 'helm/crm');
const DRY_NAMESPACE = 'crm-dryrun';

/**
 * The chart against a real API server. The operator modes (the default values and values-ha.yaml) cannot run here —
 * the operators' images are not reachable — so the API server validates them (--dry-run=server: every object
 * through admission and its schema, the operators' custom resources against their CRDs); the external mode is
 * installed for real by `cluster:up`, on the cluster's own Kafka and SecantusDB.
 */
describe('helm/crm on the cluster', () => {
  beforeAll(async () => {
    await kubectl(['create', 'namespace', DRY_NAMESPACE, '--dry-run=client', '-o', 'yaml']).then((yaml) =>
      kubectl(['apply', '-f', '-'], { input: yaml }),
    );
  });
  afterAll(async () => {
    await kubectl(['delete', 'namespace', DRY_NAMESPACE, '--wait=false', '--ignore-not-found']);
  });

  it('runs the external install: deployed, every Deployment available, the events topic created by the hook', async () => {
    const env = await clusterEnv();
    const status = JSON.parse(await helm(['status', env.CLUSTER_RELEASE, '-n', env.CLUSTER_NAMESPACE, '-o', 'json']));
    expect(status.info.status).toBe('deployed');
    const deployments = await kubectlJson<{ items: any[] }>(['-n', env.CLUSTER_NAMESPACE, 'get', 'deployments']);
    expect(deployments.items.map((d) => d.metadata.labels['app.kubernetes.io/component']).sort()).toEqual([
      'agents',
      'crm',
      'gateway',
      'messaging',
      'webhooks',
    ]);
    for (const d of deployments.items) {
      expect(d.status.availableReplicas, d.metadata.name).toBeGreaterThanOrEqual(2);
      expect(d.spec.template.spec.containers[0].image).toMatch(/^localhost\/crm-platform:[0-9a-f]{12}$/);
    }
    const kafka = kafkaFromEnv(clusterKafkaEnv(env, 'admin'), { clientId: 'cluster-test' });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: ['crm.domain-events.v1'] });
      expect(topics[0]?.partitions).toHaveLength(6);
    } finally {
      await admin.disconnect();
    }
  });

  for (const [name, files] of [
    ['default (operators)', []],
    ['HA (operators)', ['values-ha.yaml']],
    ['HA, external', ['values-external.yaml', 'values-ha.yaml']],
  ] as const) {
    it(`validates the ${name} values on the API server`, async () => {
      // values-external.yaml's CHANGE-ME passwords are refused by the chart: real-looking URIs on top of them.
      const uris = files.includes('values-external.yaml' as never)
        ? ['crm', 'webhooks', 'messaging', 'agents', 'gateway'].flatMap((service) => [
            '--set-string',
            `mongodb.external.uris.${service}=mongodb://${service}:dry-run-password@mongo-0.mongo.db/?authSource=admin`,
          ])
        : [];
      const args = ['--namespace', DRY_NAMESPACE, ...files.flatMap((file) => ['-f', resolve(CHART, file)]), ...uris];
      const notes = await helm(['install', 'dry', CHART, '--dry-run=server', ...args]);
      expect(notes).toContain('STATUS: pending-install');
      const manifest = await helm(['template', 'dry', CHART, ...args]);
      const applied = await kubectl(['apply', '--dry-run=server', '--validate=strict', '-n', DRY_NAMESPACE, '-f', '-'], {
        input: manifest,
      });
      const kinds = new Set([...applied.matchAll(/^([\w.]+)\/\S+ (created|configured) \(server dry run\)$/gm)].map((m) => m[1]));
      expect([...kinds]).toEqual(
        expect.arrayContaining(['deployment.apps', 'service', 'networkpolicy.networking.k8s.io', 'poddisruptionbudget.policy']),
      );
      if (!files.includes('values-external.yaml' as never)) {
        expect([...kinds]).toEqual(
          expect.arrayContaining([
            'mongodbcommunity.mongodbcommunity.mongodb.com',
            'kafka.kafka.strimzi.io',
            'kafkanodepool.kafka.strimzi.io',
            'kafkatopic.kafka.strimzi.io',
          ]),
        );
      }
      if (files.includes('values-ha.yaml' as never)) expect([...kinds]).toContain('horizontalpodautoscaler.autoscaling');
    });
  }

  it("checks the operators' resources against their CRDs: an unknown field is refused", async () => {
    const manifest = await helm(['template', 'dry', CHART, '--namespace', DRY_NAMESPACE]);
    const broken = manifest.replace(/(kind: Kafka\n(?:.*\n)*?spec:\n)/, '$1  notAKafkaField: true\n');
    expect(broken).not.toBe(manifest);
    await expect(
      kubectl(['apply', '--dry-run=server', '--validate=strict', '-n', DRY_NAMESPACE, '-f', '-'], { input: broken }),
    ).rejects.toThrow(/unknown field "spec.notAKafkaField"/);
  });
});
