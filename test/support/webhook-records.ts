import { newWebhookRecord, type WebhookRecord } from '../../services/webhooks/src/repository/webhook.repository';

/** A stored subscription of `orgId` to contact.created, active, as tests insert or hand to a dispatcher. */
export const webhookRecord = (orgId: string, fields: Partial<WebhookRecord> = {}): WebhookRecord => ({
  ...newWebhookRecord(
    {
      org_id: orgId,
      name: 'Receiver',
      url: 'https://hooks.example/receive',
      events: ['contact.created'],
      secret: 'whsec_plain-secret-value',
      key_id: null,
    },
    new Date(),
  ),
  ...fields,
});
