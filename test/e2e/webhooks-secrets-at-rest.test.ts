import { MongoClient, type Db } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, type SecretBox } from '../../services/webhooks/src/delivery/secret-box';
import { parseKey } from '../../services/webhooks/src/delivery/secret-keyring';
import { generateSecret } from '../../services/webhooks/src/delivery/secrets';
import { isolatedWebhooks } from '../support/isolated-webhooks';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { standardVerifies } from '../support/signatures';
import { testSystem } from '../support/system';
import { eventually, sleep, startReceiver, type Receiver } from '../support/webhook-receiver';

/** The stored document, as far as these tests read it. */
interface WebhookRow {
  _id: string;
  secret: string;
  previous_secret: string | null;
  [field: string]: unknown;
}

const receivers: Receiver[] = [];
let mongo: MongoClient;
let db: Db;
/** The box of the running system's key, from the environment the services run with. */
let box: SecretBox;

beforeAll(async () => {
  const { env } = testSystem();
  mongo = await new MongoClient(env.MONGODB_URI ?? '').connect();
  db = mongo.db(env.WEBHOOKS_DB_NAME);
  const key = parseKey(env.WEBHOOK_SECRETS_KEY ?? '', 'WEBHOOK_SECRETS_KEY');
  box = createSecretBox({ current: { id: env.WEBHOOK_SECRETS_KEY_ID ?? '', key }, old: new Map() });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await mongo.close();
});

async function subscribe(org: TestOrg, url?: string) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const created = await org.raw.post('/v1/webhooks', { name: 'at rest', url: url ?? receiver.url, events: ['contact.created'] });
  expect(created.status, created.text).toBe(201);
  return { receiver, webhook: created.body.data as { id: string; secret: string } };
}

const rawRow = (id: string) => db.collection<WebhookRow>('webhooks').findOne({ _id: id });

describe('webhook secrets at rest', () => {
  it('stores the secret sealed (no plaintext in the document), and deliveries verify with the secret the API returned', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org);
    expect(webhook.secret).toMatch(/^whsec_/);

    const row = await rawRow(webhook.id);
    const text = JSON.stringify(row);
    expect(text).not.toContain(webhook.secret);
    expect(text).not.toContain(webhook.secret.slice('whsec_'.length));
    expect(text).not.toContain('whsec_');
    // Under the key id the system runs with (generated per run: deploy/lib/secrets.ts).
    expect(row?.secret).toMatch(new RegExp(`^v1:${testSystem().env.WEBHOOK_SECRETS_KEY_ID}:[\\w-]+:[\\w-]+:[\\w-]+$`));
    // Sealed with the configured key, bound to this webhook.
    expect(box.open(String(row?.secret), webhook.id)).toBe(webhook.secret);

    await org.client.POST('/v1/contacts', { body: { name: 'Sealed Person' } });
    const [request] = await receiver.waitFor((all) => all.length >= 1, 5_000);
    expect(standardVerifies(request!, webhook.secret)).toBe(true);
  });

  it('seals the rotated secret and the previous one; both sign during the overlap', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org);
    const rotated = await org.raw.post(`/v1/webhooks/${webhook.id}/rotate-secret`, { overlap_hours: 1 });
    expect(rotated.status, rotated.text).toBe(200);
    const secret = rotated.body.data.secret as string;

    const row = await rawRow(webhook.id);
    expect(JSON.stringify(row)).not.toContain('whsec_');
    expect(box.open(String(row?.secret), webhook.id)).toBe(secret);
    expect(box.open(String(row?.previous_secret), webhook.id)).toBe(webhook.secret);

    await org.client.POST('/v1/contacts', { body: { name: 'Rotated Person' } });
    const [request] = await receiver.waitFor((all) => all.length >= 1, 5_000);
    expect(standardVerifies(request!, secret)).toBe(true);
    expect(standardVerifies(request!, webhook.secret)).toBe(true);
  });

  it('reads a plaintext row of before encryption as it is, and delivers with it', async () => {
    const org = await createTestOrg();
    const { receiver, webhook } = await subscribe(org);
    const legacy = generateSecret();
    await db.collection<WebhookRow>('webhooks').updateOne({ _id: webhook.id }, { $set: { secret: legacy } });

    await org.client.POST('/v1/contacts', { body: { name: 'Legacy Person' } });
    const [request] = await receiver.waitFor((all) => all.length >= 1, 5_000);
    expect(standardVerifies(request!, legacy)).toBe(true);
  });

  it('at start, seals plaintext rows and rows sealed under an old key under the current key', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const oldBox = createSecretBox({ current: { id: 'k0', key: oldKey }, old: new Map() });
    const system = isolatedWebhooks({
      replicas: 1,
      name: 'seal',
      env: {
        WEBHOOK_SECRETS_KEY: newKey.toString('base64'),
        WEBHOOK_SECRETS_KEY_ID: 'k1',
        WEBHOOK_SECRETS_OLD_KEYS: `k0:${oldKey.toString('base64')}`,
      },
    });
    const { replicas, dbName, dropDatabase } = await system;
    const rows = mongo.db(dbName).collection<WebhookRow>('webhooks');
    const plain = { id: 'wh_legacyplain', secret: generateSecret(), previous: generateSecret() };
    const old = { id: 'wh_legacyoldkey', secret: generateSecret() };
    const base = { org_id: 'org_x', name: 'legacy', url: 'https://example.com/hook', events: ['contact.created'], status: 'active' };
    const dates = { previous_secret_expires_at: null, created_at: new Date(), updated_at: new Date() };
    await rows.insertMany([
      { _id: plain.id, ...base, ...dates, secret: plain.secret, previous_secret: plain.previous, previous_secret_expires_at: new Date() },
      { _id: old.id, ...base, ...dates, secret: oldBox.seal(old.secret, old.id), previous_secret: null },
    ]);

    const process = await replicas[0]!.start();
    try {
      const k1 = createSecretBox({ current: { id: 'k1', key: newKey }, old: new Map() });
      await eventually(async () => ((await rows.countDocuments({ secret: /^v1:k1:/ })) === 2 ? true : undefined), 10_000, 'migration');
      const sealedPlain = await rows.findOne({ _id: plain.id });
      const sealedOld = await rows.findOne({ _id: old.id });
      expect(JSON.stringify([sealedPlain, sealedOld])).not.toContain('whsec_');
      expect(k1.open(String(sealedPlain?.secret), plain.id)).toBe(plain.secret);
      expect(k1.open(String(sealedPlain?.previous_secret), plain.id)).toBe(plain.previous);
      expect(k1.open(String(sealedOld?.secret), old.id)).toBe(old.secret);
      expect(sealedOld?.previous_secret).toBeNull();
    } finally {
      await process.stop();
      await dropDatabase();
    }
  });
});

describe('webhook redirects', () => {
  it('never follows a 3xx: the delivery fails as redirect_refused and the Location target gets no request', async () => {
    const org = await createTestOrg();
    const internal = await startReceiver();
    receivers.push(internal);
    // The target is loopback and even on the test allow-list: a redirect is refused whatever it points at.
    const { receiver, webhook } = await subscribe(org);
    receiver.answerWith({ status: 302, headers: { location: `${internal.url}?stolen=1` } });

    await org.client.POST('/v1/contacts', { body: { name: 'Redirected Person' } });
    await receiver.waitFor((all) => all.length >= 2, 10_000);
    const subscription = await eventually(async () => {
      const response = await org.raw.get(`/v1/webhooks/${webhook.id}`);
      return response.body.data.last_failure_reason ? (response.body.data as { last_failure_reason: string }) : undefined;
    });
    expect(subscription.last_failure_reason).toBe(`redirect_refused: 302 to ${internal.url}?stolen=1; redirects are never followed`);
    const deliveries = await org.raw.get(`/v1/webhooks/${webhook.id}/deliveries`);
    expect(deliveries.body.data[0]).toMatchObject({ response_status: 302, error: 'http_302' });
    await sleep(500);
    expect(internal.received).toHaveLength(0);
  });
});
