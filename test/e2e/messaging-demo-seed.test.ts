import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemoMessaging } from '../../deploy/lib/demo-key';
import { listAll } from '@crm/client';
import { createTestOrg, type TestOrg } from '../support/orgs';
import { testSystem } from '../support/system';

describe('demo seed: the messaging fixture of a demo organization', () => {
  let org: TestOrg;
  let seeded: { numbers: { qrcode: string; official: string; disconnected: string } };

  beforeAll(async () => {
    org = await createTestOrg({ name: 'Demo org for the messaging seed' });
    seeded = (await seedDemoMessaging(org.orgId, testSystem().env)) as typeof seeded;
  }, 60_000);

  it('has a connected QR-code number, a connected default official number and a disconnected number', async () => {
    const numbers = (await org.client.GET('/v1/chatapp-instances')).data!.data;
    const byId = new Map(numbers.map((n: any) => [n.id, n]));
    expect(byId.get(seeded.numbers.qrcode)).toMatchObject({ channel: 'qrcode', status: 'connected', is_default: false });
    expect(byId.get(seeded.numbers.official)).toMatchObject({ channel: 'official', status: 'connected', is_default: true });
    expect(byId.get(seeded.numbers.disconnected)).toMatchObject({ status: 'disconnected' });
  });

  it('has APPROVED templates with and without variables, a PENDING and a REJECTED one', async () => {
    const templates = (await org.client.GET('/v1/chatapp-instances/{id}/templates', { params: { path: { id: seeded.numbers.official } } }))
      .data!.data;
    const states = templates.map((t: any) => [t.name, t.status, t.variables.length]).sort();
    expect(states).toEqual([
      ['old_offer', 'REJECTED', 0],
      ['order_update', 'APPROVED', 2],
      ['summer_sale', 'PENDING', 0],
      ['welcome', 'APPROVED', 0],
    ]);
  });

  it('has contacts on every channel with conversations inside and outside the 24-hour window, made by inbound messages', async () => {
    const conversations = await listAll(org.client, '/v1/conversations');
    expect(conversations.map((c: any) => c.channel).sort()).toEqual(['chatapp', 'chatapp', 'chatapp', 'photoapp', 'socialmsg']);
    const official = conversations.filter((c: any) => c.chatapp_instance?.channel === 'official');
    const now = Date.now();
    expect(official.filter((c: any) => Date.parse(c.window_expires_at) > now)).toHaveLength(1);
    expect(official.filter((c: any) => Date.parse(c.window_expires_at) < now)).toHaveLength(1);
    for (const conversation of conversations) {
      const messages = (await org.client.GET('/v1/conversations/{id}/messages', { params: { path: { id: conversation.id } } })).data!.data;
      expect(messages[0]).toMatchObject({ direction: 'inbound', status: 'received' });
      expect(messages[0]!.external_id).not.toBeNull();
    }
    const contacts = await listAll(org.client, '/v1/contacts');
    expect(contacts.map((c: any) => c.source).sort()).toEqual(['chatapp', 'chatapp', 'chatapp', 'photoapp', 'socialmsg']);
  });

  it('a person can answer: a reply inside the window and a template outside it go out, free text outside is refused', async () => {
    const conversations = await listAll(org.client, '/v1/conversations');
    const official = conversations.filter((c: any) => c.chatapp_instance?.channel === 'official');
    const inside = official.find((c: any) => Date.parse(c.window_expires_at) > Date.now())!;
    const outside = official.find((c: any) => Date.parse(c.window_expires_at) < Date.now())!;
    const reply = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: inside.contact.id,
        channel: 'chatapp',
        conversation_id: inside.id,
        content: 'Happy to help!',
      },
    });
    expect(reply.response.status).toBe(201);
    const refused = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: outside.contact.id,
        channel: 'chatapp',
        conversation_id: outside.id,
        content: 'Still there?',
      },
    });
    expect(refused.error!.error.code).toBe('OUTSIDE_MESSAGING_WINDOW');
    const template = await org.client.POST('/v1/messages/send', {
      body: {
        contact_id: outside.contact.id,
        channel: 'chatapp',
        conversation_id: outside.id,
        template_name: 'welcome',
        template_language: 'en_US',
      },
    });
    expect(template.response.status).toBe(201);
  });
});
