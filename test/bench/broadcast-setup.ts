import { createLogger, createStorage } from '@crm/shared';
import type { SendProfile } from '@crm/shared/schemas';
import mongoose from 'mongoose';
import { loadMessagingConfig } from '../../services/messaging/src/config';
import { createNumber, createTemplate } from '../../services/messaging/src/domain/admin';
import { createDeps } from '../../services/messaging/src/wiring';
import type { ApiClient } from './api-client';
import type { OwnSystem } from './own-system';
import { seedContacts } from './seed';

/** Official numbers (with an approved template) and QR-code numbers of the benchmark's organization, connected. */
export async function connectNumbers(own: OwnSystem, counts = { official: 4, qrcode: 3 }) {
  const config = loadMessagingConfig({ ...own.system.env, LOG_LEVEL: 'silent' });
  const connection = await mongoose.createConnection(config.MONGODB_URI, { dbName: config.MESSAGING_DB_NAME }).asPromise();
  const deps = createDeps(createStorage(connection), config, createLogger('bench', 'silent'));
  const official: Array<{ id: string; ref: string }> = [];
  const qrcode: Array<{ id: string; ref: string }> = [];
  for (let i = 0; i < counts.official; i++) {
    const ref = `bench-official-${i}`;
    const view = await createNumber(deps, { org_id: own.orgId, kind: 'official', name: `Official ${i}`, provider_ref: ref });
    await createTemplate(deps, {
      org_id: own.orgId,
      instance_id: String(view.id),
      name: 'bench_update',
      language: 'en_US',
      category: 'utility',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Hello, your order shipped.' }],
    });
    official.push({ id: String(view.id), ref });
  }
  for (let i = 0; i < counts.qrcode; i++) {
    const ref = `bench-qr-${i}`;
    const view = await createNumber(deps, { org_id: own.orgId, kind: 'qrcode', name: `QR ${i}`, provider_ref: ref });
    qrcode.push({ id: String(view.id), ref });
  }
  deps.close();
  await connection.close();
  return { official, qrcode };
}

/** Contacts with distinct phones tagged `tag`, inserted with the driver. */
export async function seedAudience(own: OwnSystem, tag: string, count: number, phoneBase: number): Promise<void> {
  await seedContacts(own.contacts, own.orgId, count, (i) => ({ phone: `+1666${String(phoneBase + i).padStart(7, '0')}`, tags: [tag] }));
}

export async function templateId(api: ApiClient, instanceId: string): Promise<string> {
  const page = await api.call<{ data: Array<{ id: string }> }>('GET', `/v1/chatapp-instances/${instanceId}/templates`);
  return page.data[0]!.id;
}

export async function launch(api: ApiClient, channel: 'official' | 'qrcode', number: { id: string }, tag: string, profile: SendProfile) {
  const content =
    channel === 'official'
      ? { cloudTemplate: { templateId: await templateId(api, number.id), language: 'en_US' } }
      : { message: { type: 'text', content: 'Benchmark broadcast' } };
  const created = await api.call<{ data: { id: string } }>('POST', '/v1/broadcasts', {
    name: `bench ${tag}`,
    chatappInstanceIds: [number.id],
    audience: { type: 'tags', tags: [tag] },
    settings: { sendProfile: profile },
    ...content,
  });
  const started = Date.now();
  await api.call('POST', `/v1/broadcasts/${created.data.id}/launch`, {});
  return { id: created.data.id, started };
}
