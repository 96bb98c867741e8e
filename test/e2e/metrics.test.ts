import { newId } from '@crm/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrape, select, total, type Sample } from '../support/metrics';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver';

const CREATED = { http_route: '/v1/contacts', http_request_method: 'POST', http_response_status_code: '201' };
const CREATE_RPC = { rpc_service: 'crm.v1.ContactService', rpc_method: 'CreateContact', rpc_grpc_status_code: '0' };
const GET_MISSING_RPC = { rpc_service: 'crm.v1.ContactService', rpc_method: 'GetContact', rpc_grpc_status_code: '5' };

/**
 * An operator scrapes every process: traffic through the gateway shows up per route and status, the CRM's gRPC
 * calls per method and status, the outbox and the consumer groups, and the webhook deliveries by outcome.
 */
describe('Prometheus metrics', () => {
  let org: TestOrg;
  let receiver: Receiver;
  const before: Record<string, Sample[]> = {};

  beforeAll(async () => {
    for (const process of ['gateway', 'crm', 'webhooks']) before[process] = await scrape(process);
    org = await createTestOrg();
    receiver = await startReceiver();
    const subscribed = await org.client.POST('/v1/webhooks', { body: { name: 'metrics', url: receiver.url, events: ['contact.created'] } });
    expect(subscribed.response.status).toBe(201);
    const created = await org.client.POST('/v1/contacts', { body: { name: 'Metric Person' } });
    expect(created.response.status).toBe(201);
    const contactId = created.data!.data.id;
    await eventually(async () => receiver.received.find((request) => request.event.data?.object?.id === contactId), 15_000, 'the webhook');
  });

  afterAll(async () => {
    await receiver?.close();
  });

  it('counts gateway requests per route template, method and status, with the error code of failures', async () => {
    // Deliberately invalid or undocumented requests: the untyped client.
    const invalid = await org.raw.post('/v1/contacts', { name: 42 });
    expect(invalid.status).toBe(422);
    const missing = await org.client.GET('/v1/contacts/{id}', { params: { path: { id: newId('contact') } } });
    expect(missing.response.status).toBe(404);
    const unknown = await org.raw.get('/v1/no-such-route/123');
    expect(unknown.status).toBe(404);

    const after = await scrape('gateway');
    const name = 'http_server_request_duration_seconds_count';
    expect(total(after, name, CREATED) - total(before.gateway!, name, CREATED)).toBeGreaterThanOrEqual(1);
    expect(total(after, name, { ...CREATED, http_response_status_code: '422', error_code: 'VALIDATION_ERROR' })).toBeGreaterThanOrEqual(1);
    expect(
      total(after, name, {
        http_route: '/v1/contacts/{id}',
        http_request_method: 'GET',
        http_response_status_code: '404',
        error_code: 'NOT_FOUND',
      }),
    ).toBeGreaterThanOrEqual(1);
    // An unknown path is one series, whatever the URL: raw URLs never become labels.
    expect(
      total(after, name, { http_route: 'unmatched', http_response_status_code: '404', error_code: 'ROUTE_NOT_FOUND' }),
    ).toBeGreaterThanOrEqual(1);
    expect(select(after, name).every((sample) => !sample.labels.http_route?.includes('no-such-route'))).toBe(true);
    // Successes carry no error code; the histogram's buckets add up to its count; the series say which service they are.
    expect(select(after, name, CREATED)[0]?.labels.error_code).toBeUndefined();
    const inf = total(after, 'http_server_request_duration_seconds_bucket', { ...CREATED, le: '+Inf' });
    expect(inf).toBe(total(after, name, CREATED));
    expect(total(after, 'http_server_request_duration_seconds_sum', CREATED)).toBeGreaterThan(0);
    expect(select(after, name, CREATED)[0]?.labels.service_name).toBe('gateway');
  });

  it('times every gRPC call of the services per method and status', async () => {
    const after = await scrape('crm');
    const name = 'rpc_server_duration_seconds_count';
    expect(total(after, name, CREATE_RPC) - total(before.crm!, name, CREATE_RPC)).toBeGreaterThanOrEqual(1);
    expect(total(after, name, GET_MISSING_RPC)).toBeGreaterThanOrEqual(1);
    expect(select(after, name, CREATE_RPC)[0]?.labels.service_name).toBe('crm');
    // The webhook service's own server is measured the same way (the gateway created the subscription through it).
    expect(
      total(await scrape('webhooks'), name, { rpc_service: 'webhooks.v1.WebhookService', rpc_grpc_status_code: '0' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('shows the outbox publishing what the CRM wrote, and how much is still pending', async () => {
    const after = await scrape('crm');
    const published = 'crm_outbox_published_events_total';
    expect(total(after, published) - total(before.crm!, published)).toBeGreaterThanOrEqual(1);
    const pending = select(after, 'crm_outbox_pending_events', { collection: 'contacts' });
    // Each CRM replica reports the collection's count; the contact's event has left, so nothing of it remains.
    expect(pending.length).toBe(Object.keys(testSystem().metrics).filter((process) => process.startsWith('crm')).length);
    for (const sample of pending) expect(sample.value).toBeGreaterThanOrEqual(0);
  });

  it("reports the webhook consumer group's lag and the events it processed", async () => {
    const group = testSystem().env.WEBHOOK_CONSUMER_GROUP!;
    const after = await scrape('webhooks');
    const lag = select(after, 'crm_kafka_consumer_lag_messages', { consumer_group: group, topic: testSystem().env.EVENTS_TOPIC! });
    expect(lag.length).toBeGreaterThanOrEqual(1);
    for (const sample of lag) expect(Number.isFinite(sample.value) && sample.value >= 0).toBe(true);
    const processed = { consumer_group: group };
    expect(
      total(after, 'crm_kafka_consumer_processed_events_total', processed) -
        total(before.webhooks!, 'crm_kafka_consumer_processed_events_total', processed),
    ).toBeGreaterThanOrEqual(1);
  });

  it('counts the delivery by its outcome', async () => {
    const succeeded = { outcome: 'succeeded', trigger: 'event' };
    const name = 'crm_webhook_deliveries_total';
    // The attempt is counted once recorded, just after the receiver answered.
    const after = await eventually(async () => {
      const samples = await scrape('webhooks');
      return total(samples, name, succeeded) > total(before.webhooks!, name, succeeded) ? samples : undefined;
    });
    expect(total(after, 'crm_webhook_attempt_duration_seconds_count', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
  });
});
