import { sendMessageBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Message } from '../../schemas/messaging.schemas';

export const sendMessageRoute = defineRoute({
  operationId: 'sendMessage',
  method: 'POST',
  path: '/v1/messages/send',
  tag: 'Messages',
  summary: 'Send a message',
  description: [
    'Sends text or media to a contact on chatapp, photoapp or socialmsg. Honours Idempotency-Key (24 h). Emits message.sent.',
    "chatapp number: instance_id, else the number of conversation_id, else the number of the contact's latest chatapp conversation, else the default number.",
    "Official numbers: free text only within 24 h of the contact's last message (OUTSIDE_MESSAGING_WINDOW); otherwise an APPROVED template in exactly its language (TEMPLATE_NOT_FOUND) with every variable.",
    'QR-code numbers: template_* fields are silently ignored, so content is required.',
    'status "sent" does not guarantee delivery: provider error 131042 arrives later as status "failed". An official account the provider reports without a payment method is refused before sending (TEMPLATE_SEND_ERROR, provider_code 131042).',
  ].join('\n\n'),
  scope: 'write:messages',
  body: sendMessageBody,
  success: { status: 201, kind: 'one', schema: Message },
  errors: [
    'INVALID_JSON',
    'UNKNOWN_FIELDS',
    'VALIDATION_ERROR',
    'INVALID_ID',
    'INVALID_REFERENCE',
    'CONTACT_CHANNEL_UNAVAILABLE',
    'OUTSIDE_MESSAGING_WINDOW',
    'CHANNEL_DISCONNECTED',
    'TEMPLATE_NOT_FOUND',
    'TEMPLATE_SEND_ERROR',
    'TEMPLATE_NOT_CONFIRMED',
    'CHATAPP_INSTANCE_RATE_LIMIT',
    'SOCIALMSG_PAGE_RATE_LIMIT',
    'IDEMPOTENCY_KEY_REUSED',
    'IDEMPOTENCY_KEY_IN_USE',
  ],
  idempotent: true,
  handle: ({ body, principal, clients }) =>
    // Never `sender` or `message_id`: those are for internal callers (the agents service).
    clients.messaging.sendMessage({ org_id: principal.orgId, sender_key_id: principal.keyId, body, sender: undefined }),
});
