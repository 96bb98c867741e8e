import { Webhook as StandardWebhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, call, freshOrganization } from './support/api';
import { clusterEnv, eventually, followLogs, kubectl, kubectlJson, releasePods } from './support/cluster';
import { expectNothingLost, startWriteLoad } from './support/load';
import { deploySmokePods, RECEIVER_URL, waitForEvents } from './support/smoke-namespace';

/** Names and ready pods of the release's Deployments. */
async function deployments(): Promise<{ name: string; ready: number; desired: number; updated: number }[]> {
  const { CLUSTER_NAMESPACE } = await clusterEnv();
  const list = await kubectlJson<{ items: any[] }>(['-n', CLUSTER_NAMESPACE, 'get', 'deployments']);
  return list.items.map((d) => ({
    name: d.metadata.name,
    ready: d.status.readyReplicas ?? 0,
    desired: d.spec.replicas,
    updated: d.status.updatedReplicas ?? 0,
  }));
}

async function podsOf(deployment: string): Promise<string[]> {
  const { CLUSTER_RELEASE } = await clusterEnv();
  return (await releasePods(deployment.slice(CLUSTER_RELEASE.length + 1))).map((pod) => pod.name);
}

/** Failures counted by kind. */
function summary(failures: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const failure of failures) counts[failure] = (counts[failure] ?? 0) + 1;
  return counts;
}

/** The lines above info (warnings, errors: breakers, failed calls) among `lines`: where failed requests come from. */
function warnings(lines: string[]): string {
  return lines
    .filter((line) => /"level":(40|50|60)/.test(line))
    .slice(-40)
    .join('\n');
}

/**
 * A black-box smoke of the release `cluster:up` installed, through the gateway's Service (its ClusterIP, from this
 * host, as kube-proxy routes it): keys, a contact round trip, a signed webhook delivered inside the cluster, pods
 * deleted and every Deployment restarted under a steady write load, the autoscalers reading their metrics.
 */
describe('the release, through the gateway Service', () => {
  let key = '';
  let orgId = '';
  let secret = '';

  beforeAll(async () => {
    await deploySmokePods();
    ({ key, orgId } = await freshOrganization(`cluster smoke ${Date.now()}`));
    const subscription = await call('POST', '/v1/webhooks', {
      key,
      body: { name: 'cluster receiver', url: RECEIVER_URL, events: ['contact.created'] },
    });
    expect(subscription.status, JSON.stringify(subscription.body)).toBe(201);
    secret = subscription.body.data.secret;
  });

  it('accepts the key the admin CLI created and refuses missing, unknown and under-scoped keys', async () => {
    const me = await call('GET', '/v1/me', { key });
    expect(me.status).toBe(200);
    expect(me.body.data.api_key.scopes).toContain('write:contacts');
    expect((await call('GET', '/v1/contacts')).body.error.code).toBe('MISSING_API_KEY');
    const unknown = await call('GET', '/v1/contacts', { key: `sk_live_${'0'.repeat(40)}` });
    expect([unknown.status, unknown.body.error.code]).toEqual([401, 'INVALID_API_KEY']);
    const readOnly = await admin(['create-key', '--org', orgId, '--name', 'read only', '--scopes', 'read:contacts']);
    const refused = await call('POST', '/v1/contacts', { key: readOnly.key, body: { name: 'not allowed' } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPES']);
    expect((await call('GET', '/v1/contacts', { key: readOnly.key })).status).toBe(200);
  });

  it('round-trips a contact', async () => {
    const email = `ada.${Date.now()}@example.com`;
    const created = await call('POST', '/v1/contacts', { key, body: { name: 'Ada Lovelace', email, tags: ['cluster'] } });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    const read = await call('GET', `/v1/contacts/${id}`, { key });
    expect(read.body.data).toMatchObject({ id, name: 'Ada Lovelace', email, tags: ['cluster'] });
    expect((await call('PATCH', `/v1/contacts/${id}`, { key, body: { name: 'Ada King' } })).status).toBe(200);
    expect((await call('GET', `/v1/contacts/${id}`, { key })).body.data.name).toBe('Ada King');
    const list = await call('GET', '/v1/contacts?limit=100', { key });
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(id);
  });

  it('delivers a signed webhook from the webhook service to a receiver inside the cluster', async () => {
    const created = await call('POST', '/v1/contacts', { key, body: { name: 'Webhook target' } });
    const [delivery] = await waitForEvents('contact.created', [created.body.data.id]);
    const headers = delivery?.headers ?? {};
    expect(() =>
      new StandardWebhook(secret).verify(delivery?.body ?? '', {
        'webhook-id': headers['webhook-id'] ?? '',
        'webhook-timestamp': headers['webhook-timestamp'] ?? '',
        'webhook-signature': headers['webhook-signature'] ?? '',
      }),
    ).not.toThrow();
  });

  it('replaces a deleted pod of each service, and loses no write and no event', async () => {
    const { CLUSTER_NAMESPACE } = await clusterEnv();
    const gatewayLogs = await followLogs('gateway');
    const load = startWriteLoad(key, 'pod deletion');
    await new Promise((wake) => setTimeout(wake, 3_000));
    const deleted: string[] = [];
    for (const { name } of await deployments()) {
      const [pod] = await podsOf(name);
      if (pod) deleted.push(pod);
    }
    await kubectl(['-n', CLUSTER_NAMESPACE, 'delete', 'pod', ...deleted, '--wait=false']);
    await eventually('every Deployment ready again without the deleted pods', 240_000, async () => {
      const all = await deployments();
      const pods = (await Promise.all(all.map((d) => podsOf(d.name)))).flat();
      return all.every((d) => d.ready >= d.desired) && !deleted.some((p) => pods.includes(p)) ? true : undefined;
    });
    await new Promise((wake) => setTimeout(wake, 3_000));
    await load.stop();
    console.log(`pod deletion: ${load.acknowledged.length} writes acknowledged, ${load.failures.length} failed`, summary(load.failures));
    const logged = gatewayLogs();
    if (load.failures.length > 0) console.log(warnings(logged));
    expect(load.acknowledged.length).toBeGreaterThan(50);
    await expectNothingLost(key, load.acknowledged);
  });

  it('restarts every Deployment under a steady write load with zero failed requests', async () => {
    const { CLUSTER_NAMESPACE } = await clusterEnv();
    const before = new Map<string, string[]>();
    for (const { name } of await deployments()) before.set(name, await podsOf(name));
    const gatewayLogs = await followLogs('gateway');
    const load = startWriteLoad(key, 'rollout');
    await new Promise((wake) => setTimeout(wake, 3_000));
    await kubectl(['-n', CLUSTER_NAMESPACE, 'rollout', 'restart', 'deployment']);
    for (const name of before.keys()) {
      await kubectl(['-n', CLUSTER_NAMESPACE, 'rollout', 'status', `deployment/${name}`, '--timeout=600s'], { timeoutMs: 620_000 });
    }
    await new Promise((wake) => setTimeout(wake, 5_000));
    await load.stop();
    for (const [name, pods] of before)
      expect(
        (await podsOf(name)).filter((p) => pods.includes(p)),
        name,
      ).toEqual([]);
    console.log(`rollout restart: ${load.acknowledged.length} writes acknowledged, ${load.failures.length} failed`, summary(load.failures));
    const logged = gatewayLogs();
    if (load.failures.length > 0) console.log(warnings(logged));
    expect(load.failures).toEqual([]);
    expect(load.acknowledged.length).toBeGreaterThan(100);
    await expectNothingLost(key, load.acknowledged);
  });

  it('gives every HorizontalPodAutoscaler the metrics it names', async () => {
    const { CLUSTER_NAMESPACE } = await clusterEnv();
    const hpas = await eventually('every HPA reading its metrics', 180_000, async () => {
      const list = await kubectlJson<{ items: any[] }>(['-n', CLUSTER_NAMESPACE, 'get', 'hpa']);
      const reading = list.items.every((hpa) => {
        const active = hpa.status.conditions?.find((c: { type: string }) => c.type === 'ScalingActive');
        const current = hpa.status.currentMetrics ?? [];
        return (
          active?.status === 'True' &&
          hpa.spec.metrics.every((m: any) =>
            current.some((c: any) =>
              m.type === 'Resource'
                ? c.resource?.name === m.resource.name && c.resource.current.averageUtilization !== undefined
                : c.pods?.metric.name === m.pods.metric.name && c.pods.current.averageValue !== undefined,
            ),
          )
        );
      });
      return reading ? list.items : undefined;
    });
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual((await deployments()).map((d) => d.name).sort());
  });
});
