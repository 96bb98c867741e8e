import { createNumber, createTemplate } from '@crm/messaging/src/domain/admin';
import type { MessagingDeps } from '@crm/messaging/src/domain/deps';

const HOUR = 3_600_000;

/**
 * The messaging fixture of a demo organization (issue 8 item 6): a connected QR-code number, a connected official
 * number (the default) with templates in every interesting state, a disconnected number, one page per social
 * channel, and conversations made by inbound messages through the provider simulator, so every conversation,
 * message and contact is one the system itself produced. One official conversation is outside the 24-hour window.
 */
export async function seedDemoMessaging(deps: MessagingDeps, input: { orgId: string; simUrl: string }) {
  const tag = input.orgId.slice(-8).toLowerCase();
  const orgId = input.orgId;
  const qr = await createNumber(deps, {
    org_id: orgId,
    kind: 'qrcode',
    name: 'Sales phone (QR)',
    provider_ref: `demo-${tag}-qr`,
    phone_number: '+15550100001',
  });
  const official = await createNumber(deps, {
    org_id: orgId,
    kind: 'official',
    name: 'Support line (official)',
    provider_ref: `demo-${tag}-official`,
    phone_number: '+15550100002',
    is_default: true,
    warmup_daily_limit: 1000,
  });
  const old = await createNumber(deps, {
    org_id: orgId,
    kind: 'qrcode',
    name: 'Old phone (QR)',
    provider_ref: `demo-${tag}-old`,
    phone_number: '+15550100003',
    status: 'disconnected',
  });
  await createNumber(deps, { org_id: orgId, kind: 'photoapp', name: 'Photo profile', provider_ref: `demo-${tag}-photo` });
  await createNumber(deps, { org_id: orgId, kind: 'socialmsg', name: 'Social page', provider_ref: `demo-${tag}-page` });

  const templates = [
    {
      name: 'order_update',
      language: 'en_US',
      category: 'utility',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Hi {{1}}, your order {{2}} is on its way.' }],
    },
    {
      name: 'welcome',
      language: 'en_US',
      category: 'marketing',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Welcome! Reply to this message to talk to our team.' }],
    },
    {
      name: 'summer_sale',
      language: 'en_US',
      category: 'marketing',
      status: 'PENDING',
      components: [{ type: 'BODY', text: 'Summer sale: 20% off this week.' }],
    },
    {
      name: 'old_offer',
      language: 'en_US',
      category: 'marketing',
      status: 'REJECTED',
      components: [{ type: 'BODY', text: 'Click here for a free prize!!!' }],
    },
  ];
  for (const template of templates) await createTemplate(deps, { org_id: orgId, instance_id: official.id, ...template });

  const inbound = [
    {
      channel: 'qrcode',
      to_number: `demo-${tag}-qr`,
      from: '+15550001111',
      name: 'Ana Souza',
      text: 'Hi! Is the blue model still in stock?',
    },
    {
      channel: 'official',
      to_number: `demo-${tag}-official`,
      from: '+15550002222',
      name: 'Bruno Lima',
      text: 'Hello, I need help with order 1042.',
    },
    {
      channel: 'official',
      to_number: `demo-${tag}-official`,
      from: '+15550003333',
      name: 'Carla Dias',
      text: 'Thanks, that was all.',
      timestamp: new Date(Date.now() - 30 * HOUR).toISOString(),
    },
    {
      channel: 'photoapp',
      to_number: `demo-${tag}-photo`,
      from: 'jane.doe',
      name: 'Jane Doe',
      text: 'Love the new collection! Do you have it in M?',
    },
    { channel: 'socialmsg', to_number: `demo-${tag}-page`, from: 'psid-4455', name: 'Diego Ruiz', text: 'Do you ship to Canada?' },
  ];
  for (const message of inbound) {
    const response = await fetch(`${input.simUrl}/control/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
    });
    const answer = (await response.json()) as { callback_statuses?: number[] };
    if (!response.ok || !answer.callback_statuses?.every((status) => status === 200))
      throw new Error(`the simulator could not deliver the demo message from ${message.from}: ${JSON.stringify(answer)}`);
  }
  return {
    organization_id: orgId,
    numbers: { qrcode: qr.id, official: official.id, disconnected: old.id },
    templates: templates.length,
    conversations: inbound.length,
  };
}
