import { AppError } from '@crm/shared';
import { asArray, asRecord, asString, providerCall, rateLimited, retryAfterSeconds } from './http-call';
import type { OutgoingMessage, ProviderAdapter, ProviderCallback } from './provider';

export interface PageMessengerOptions {
  kind: 'photoapp' | 'socialmsg';
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

const RATE_LIMIT_CODES = new Set(['4', '32', '613']);
const DISCONNECTED_CODES = new Set(['190', '200', '10']);

/**
 * The social network's page messaging (used by the photo-sharing and the page-messenger channels): sends to
 * /{page_id}/messages with a recipient id, callbacks as `entry[].messaging[]` events.
 */
export function pageMessengerAdapter(options: PageMessengerOptions): ProviderAdapter {
  return {
    kind: options.kind,
    signatureHeader: 'x-hub-signature-256',

    async send(message: OutgoingMessage) {
      const payload =
        message.type === 'text'
          ? { text: message.content }
          : { attachment: { type: message.type === 'document' ? 'file' : message.type, payload: { url: message.media_url } } };
      const url = `${options.baseUrl}/graph/v1/${encodeURIComponent(message.instance.provider_ref)}/messages`;
      const response = await providerCall(url, {
        method: 'POST',
        token: options.token,
        body: { recipient: { id: message.to }, messaging_type: 'RESPONSE', message: payload },
        timeoutMs: options.timeoutMs,
        idempotencyKey: message.idempotency_key,
      });
      if (response.status < 300) {
        const id = asString(response.body.message_id);
        if (id) return { external_id: id };
      }
      const error = asRecord(response.body.error);
      const code = asString(error.code) ?? `http_${response.status}`;
      const text = asString(error.message) ?? 'The page refused the send.';
      if (response.status === 429 || RATE_LIMIT_CODES.has(code))
        throw rateLimited('SOCIALMSG_PAGE_RATE_LIMIT', retryAfterSeconds(response.headers, 60));
      if (DISCONNECTED_CODES.has(code)) throw new AppError('CHANNEL_DISCONNECTED', `The page is not connected (${code}): ${text}`);
      throw new AppError('TEMPLATE_SEND_ERROR', `The page provider refused the send (${code}): ${text}`, {
        provider_code: code,
        provider_message: text,
      });
    },

    parseCallback(body: unknown): ProviderCallback[] {
      const out: ProviderCallback[] = [];
      for (const rawEntry of asArray(asRecord(body).entry)) {
        const entry = asRecord(rawEntry);
        const ref = asString(entry.id) ?? '';
        for (const change of asArray(entry.changes)) {
          const c = asRecord(change);
          if (c.field === 'page_status') out.push({ kind: 'connection', ref, connected: asRecord(c.value).status !== 'disconnected' });
        }
        for (const rawEvent of asArray(entry.messaging)) {
          const event = asRecord(rawEvent);
          const at = new Date(Number(event.timestamp ?? 0));
          const sender = asRecord(event.sender);
          const message = asRecord(event.message);
          if (event.message && message.is_deleted === true) {
            out.push({ kind: 'delete', ref, external_id: asString(message.mid) ?? '', at });
          } else if (event.message && message.is_echo !== true) {
            const attachment = asRecord(asArray(message.attachments)[0]);
            out.push({
              kind: 'message',
              ref,
              from: asString(sender.id) ?? '',
              from_name: asString(sender.name),
              external_id: asString(message.mid) ?? '',
              at,
              type: event.message && message.text !== undefined ? 'text' : (asString(attachment.type) ?? 'unsupported'),
              text: asString(message.text),
              media_url: asString(asRecord(attachment.payload).url),
            });
          }
          if (event.message_edit) {
            const edit = asRecord(event.message_edit);
            out.push({ kind: 'edit', ref, external_id: asString(edit.mid) ?? '', text: asString(edit.text) ?? '', at });
          }
          if (event.reaction) {
            const reaction = asRecord(event.reaction);
            const mid = asString(reaction.mid) ?? '';
            const emoji = reaction.action === 'unreact' ? '' : (asString(reaction.emoji) ?? asString(reaction.reaction) ?? '');
            const from = asString(sender.id) ?? '';
            const key = `${from}:${String(reaction.action ?? 'react')}:${emoji}:${at.getTime()}`;
            out.push({ kind: 'reaction', ref, external_id: mid, from, emoji, key, at });
          }
          if (event.delivery)
            for (const mid of asArray(asRecord(event.delivery).mids))
              out.push({ kind: 'status', ref, external_id: asString(mid) ?? '', status: 'delivered', error: null, at });
          if (event.read)
            out.push({ kind: 'status', ref, external_id: asString(asRecord(event.read).mid) ?? '', status: 'read', error: null, at });
        }
      }
      return out;
    },
  };
}
