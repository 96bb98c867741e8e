import type { InstanceKind } from '@crm/shared/schemas';

/**
 * The callback bodies each provider posts, in its own shape (the adapters in ../providers parse them back).
 * `at` is the provider's event time.
 */
export type SimEvent =
  | { type: 'message'; from: string; name: string | null; id: string; text: string; at: Date }
  | { type: 'phone_send'; to: string; id: string; text: string; at: Date }
  | {
      type: 'status';
      id: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      recipient: string;
      error?: { code: number; title: string };
      at: Date;
    }
  | { type: 'edit'; from: string; id: string; text: string; at: Date }
  /** The person deletes a message for everyone; `id` is the message's provider id. */
  | { type: 'delete'; from: string; id: string; at: Date }
  /** The person reacts to the message `message_id` (an empty emoji removes the reaction); `id` is the reaction's own id. */
  | { type: 'reaction'; from: string; id: string; message_id: string; emoji: string; at: Date }
  | { type: 'connection'; connected: boolean }
  /** A QR-code session needs pairing again: the code the phone must scan, valid until `expires_at`. */
  | { type: 'qr'; code: string; expires_at: Date }
  | { type: 'template_status'; name: string; language: string; status: string; reason?: string };

const seconds = (at: Date) => String(Math.floor(at.getTime() / 1000));
const digitsOf = (value: string) => value.split('@')[0]?.replace(/\D/g, '') ?? '';

export function callbackBody(kind: InstanceKind, ref: string, event: SimEvent): unknown {
  if (kind === 'official') return cloudBody(ref, event);
  if (kind === 'qrcode') return bridgeBody(ref, event);
  return pageBody(ref, event);
}

export const signatureHeaderOf = (kind: InstanceKind): string => (kind === 'qrcode' ? 'x-bridge-signature' : 'x-hub-signature-256');

function cloudBody(ref: string, event: SimEvent): unknown {
  const change = (field: string, value: Record<string, unknown>) => ({
    object: 'chatapp_business_account',
    entry: [
      { id: `waba-${ref}`, changes: [{ field, value: { messaging_product: 'chatapp', metadata: { phone_number_id: ref }, ...value } }] },
    ],
  });
  switch (event.type) {
    case 'message':
      return change('messages', {
        contacts: [{ profile: { name: event.name ?? '' }, wa_id: digitsOf(event.from) }],
        messages: [{ from: digitsOf(event.from), id: event.id, timestamp: seconds(event.at), type: 'text', text: { body: event.text } }],
      });
    case 'edit':
      return change('messages', {
        messages: [
          {
            from: digitsOf(event.from),
            id: `${event.id}.edit.${event.at.getTime()}`,
            timestamp: seconds(event.at),
            type: 'edit',
            edit: { original_id: event.id, text: { body: event.text } },
          },
        ],
      });
    case 'delete':
      return change('messages', {
        messages: [
          {
            from: digitsOf(event.from),
            id: `${event.id}.revoke`,
            timestamp: seconds(event.at),
            type: 'revoke',
            revoke: { original_id: event.id },
          },
        ],
      });
    case 'reaction':
      return change('messages', {
        contacts: [{ profile: { name: '' }, wa_id: digitsOf(event.from) }],
        messages: [
          {
            from: digitsOf(event.from),
            id: event.id,
            timestamp: seconds(event.at),
            type: 'reaction',
            reaction: { message_id: event.message_id, emoji: event.emoji },
          },
        ],
      });
    case 'status':
      return change('messages', {
        statuses: [
          {
            id: event.id,
            status: event.status,
            timestamp: seconds(event.at),
            recipient_id: event.recipient,
            ...(event.error ? { errors: [event.error] } : {}),
          },
        ],
      });
    case 'connection':
      return change('account_update', { event: event.connected ? 'CONNECTED' : 'DISCONNECTED' });
    case 'template_status':
      return change('message_template_status_update', {
        event: event.status,
        message_template_name: event.name,
        message_template_language: event.language,
        reason: event.reason ?? 'NONE',
      });
    case 'phone_send':
    case 'qr':
      return change('messages', {});
  }
}

function bridgeBody(ref: string, event: SimEvent): unknown {
  const wrap = (name: string, data: Record<string, unknown>) => ({ event: name, instance: ref, data });
  switch (event.type) {
    case 'message':
      return wrap('message.upsert', {
        id: event.id,
        from_me: false,
        remote_jid: `${digitsOf(event.from)}@c.chatapp`,
        push_name: event.name,
        timestamp: seconds(event.at),
        text: event.text,
      });
    case 'phone_send':
      return wrap('message.upsert', {
        id: event.id,
        from_me: true,
        remote_jid: `${digitsOf(event.to)}@c.chatapp`,
        timestamp: seconds(event.at),
        text: event.text,
      });
    case 'edit':
      return wrap('message.edit', { id: event.id, text: event.text, timestamp: seconds(event.at) });
    case 'delete':
      return wrap('message.delete', { id: event.id, timestamp: seconds(event.at) });
    case 'reaction':
      return wrap('message.reaction', {
        id: event.id,
        message_id: event.message_id,
        remote_jid: `${digitsOf(event.from)}@c.chatapp`,
        text: event.emoji,
        timestamp: seconds(event.at),
      });
    case 'qr':
      return wrap('qrcode.updated', { qrcode: { code: event.code }, expires_at: seconds(event.expires_at) });
    case 'status': {
      const status = { sent: 'SERVER_ACK', delivered: 'DELIVERY_ACK', read: 'READ', failed: 'ERROR' }[event.status];
      return wrap('message.update', {
        id: event.id,
        status,
        timestamp: seconds(event.at),
        ...(event.error ? { error_code: String(event.error.code), error_message: event.error.title } : {}),
      });
    }
    case 'connection':
      return wrap('connection.update', { state: event.connected ? 'open' : 'close' });
    case 'template_status':
      return wrap('noop', {});
  }
}

function pageBody(ref: string, event: SimEvent): unknown {
  const messaging = (item: Record<string, unknown>) => ({
    object: 'page',
    entry: [{ id: ref, time: Date.now(), messaging: [{ recipient: { id: ref }, ...item }] }],
  });
  switch (event.type) {
    case 'message':
      return messaging({
        sender: { id: event.from, name: event.name },
        timestamp: event.at.getTime(),
        message: { mid: event.id, text: event.text },
      });
    case 'edit':
      return messaging({ sender: { id: event.from }, timestamp: event.at.getTime(), message_edit: { mid: event.id, text: event.text } });
    case 'delete':
      return messaging({ sender: { id: event.from }, timestamp: event.at.getTime(), message: { mid: event.id, is_deleted: true } });
    case 'reaction':
      return messaging({
        sender: { id: event.from },
        timestamp: event.at.getTime(),
        reaction: { mid: event.message_id, action: event.emoji ? 'react' : 'unreact', emoji: event.emoji, reaction: 'other' },
      });
    case 'status':
      if (event.status === 'read')
        return messaging({ sender: { id: event.recipient }, timestamp: event.at.getTime(), read: { mid: event.id } });
      return messaging({ sender: { id: event.recipient }, timestamp: event.at.getTime(), delivery: { mids: [event.id] } });
    case 'connection':
      return {
        object: 'page',
        entry: [
          {
            id: ref,
            time: Date.now(),
            changes: [{ field: 'page_status', value: { status: event.connected ? 'connected' : 'disconnected' } }],
          },
        ],
      };
    default:
      return { object: 'page', entry: [] };
  }
}
