import { AppError } from '@crm/shared';
import { asRecord, asString, providerCall, rateLimited, retryAfterSeconds } from './http-call';
import type { OutgoingMessage, ProviderAdapter, ProviderCallback } from './provider';

export interface QrBridgeOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

const STATUS_OF: Record<string, 'sent' | 'delivered' | 'read' | 'failed'> = {
  SERVER_ACK: 'sent',
  DELIVERY_ACK: 'delivered',
  READ: 'read',
  PLAYED: 'read',
  ERROR: 'failed',
};

/**
 * The QR-code bridge: a phone session driven over HTTP (sends per instance, `{event, instance, data}` callbacks).
 * It knows no templates; the send path never gives it one.
 */
export function qrBridgeAdapter(options: QrBridgeOptions): ProviderAdapter {
  return {
    kind: 'qrcode',
    signatureHeader: 'x-bridge-signature',

    async send(message: OutgoingMessage) {
      const body =
        message.type === 'text'
          ? { to: message.to, text: message.content }
          : { to: message.to, media: { type: message.type, url: message.media_url, caption: message.content } };
      const url = `${options.baseUrl}/bridge/instances/${encodeURIComponent(message.instance.provider_ref)}/messages`;
      const response = await providerCall(url, {
        method: 'POST',
        token: options.token,
        body,
        timeoutMs: options.timeoutMs,
        idempotencyKey: message.idempotency_key,
      });
      if (response.status < 300) {
        const id = asString(response.body.id);
        if (id) return { external_id: id };
      }
      const error = asString(response.body.error) ?? `http_${response.status}`;
      if (response.status === 429)
        throw rateLimited('CHATAPP_INSTANCE_RATE_LIMIT', retryAfterSeconds(response.headers, Number(response.body.retry_after) || 30));
      if (response.status === 409 || error === 'instance_disconnected')
        throw new AppError('CHANNEL_DISCONNECTED', 'The QR-code number is disconnected from its phone.');
      throw new AppError('TEMPLATE_SEND_ERROR', `The QR-code bridge refused the send (${error}).`, {
        provider_code: error,
        provider_message: asString(response.body.message) ?? '',
      });
    },

    parseCallback(body: unknown): ProviderCallback[] {
      const { event, instance, data } = asRecord(body) as { event?: unknown; instance?: unknown; data?: unknown };
      const ref = asString(instance) ?? '';
      const d = asRecord(data);
      const at = new Date(Number(asString(d.timestamp) ?? 0) * 1000);
      switch (event) {
        case 'message.upsert':
          if (d.from_me === true)
            return [
              { kind: 'outgoing', ref, to: asString(d.remote_jid) ?? '', external_id: asString(d.id) ?? '', at, text: asString(d.text) },
            ];
          return [
            {
              kind: 'message',
              ref,
              from: asString(d.remote_jid) ?? '',
              from_name: asString(d.push_name),
              external_id: asString(d.id) ?? '',
              at,
              type: asString(d.media_type) ?? 'text',
              text: asString(d.text),
              media_url: asString(d.media_url),
            },
          ];
        case 'message.update': {
          const status = STATUS_OF[asString(d.status) ?? ''];
          if (!status) return [];
          const error =
            status === 'failed'
              ? { code: asString(d.error_code) ?? 'bridge_error', message: asString(d.error_message) ?? 'The bridge reported a failure.' }
              : null;
          return [{ kind: 'status', ref, external_id: asString(d.id) ?? '', status, error, at }];
        }
        case 'message.edit':
          return [{ kind: 'edit', ref, external_id: asString(d.id) ?? '', text: asString(d.text) ?? '', at }];
        case 'message.delete':
          return [{ kind: 'delete', ref, external_id: asString(d.id) ?? '', at }];
        case 'message.reaction':
          return [
            {
              kind: 'reaction',
              ref,
              external_id: asString(d.message_id) ?? '',
              from: asString(d.remote_jid) ?? '',
              emoji: asString(d.text) ?? '',
              key: asString(d.id) ?? '',
              at,
            },
          ];
        case 'connection.update':
          return [{ kind: 'connection', ref, connected: d.state === 'open' }];
        case 'qrcode.updated': {
          const expires = Number(asString(d.expires_at) ?? 0);
          const code = asString(asRecord(d.qrcode).code);
          return code ? [{ kind: 'qr', ref, qr_code: code, expires_at: expires > 0 ? new Date(expires * 1000) : null }] : [];
        }
        default:
          return [];
      }
    },
  };
}
