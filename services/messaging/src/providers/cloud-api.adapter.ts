import type { IncomingHttpHeaders } from 'node:http';
import { AppError } from '@crm/shared';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';
import { asArray, asRecord, asString, providerCall, rateLimited, retryAfterSeconds } from './http-call';
import type { OutgoingMessage, ProviderAccount, ProviderAdapter, ProviderCallback, TemplateRegistration } from './provider';

export interface CloudApiOptions {
  baseUrl: string;
  token: string;
  timeoutMs: number;
}

const VERSION = 'v1';

/** Provider error codes of the official cloud API (modelled on the public cloud chat API's codes). */
const RATE_LIMIT_CODES = new Set(['4', '80007', '130429', '131048', '131056']);
const WINDOW_CODES = new Set(['131047']);
const DISCONNECTED_CODES = new Set(['131031', '133010', '190']);

/**
 * The official number's cloud API: JSON sends to /{phone_number_id}/messages answered with a provider message id,
 * templates under /{phone_number_id}/message_templates, and callbacks in its `entry[].changes[].value` envelope.
 */
export function cloudApiAdapter(options: CloudApiOptions): ProviderAdapter {
  const url = (instance: ChatInstanceRecord, path = '') =>
    `${options.baseUrl}/cloud/${VERSION}/${encodeURIComponent(instance.provider_ref)}${path}`;
  return {
    kind: 'official',
    signatureHeader: 'x-hub-signature-256',

    async send(message: OutgoingMessage) {
      const response = await providerCall(url(message.instance, '/messages'), {
        method: 'POST',
        token: options.token,
        body: wireMessage(message),
        timeoutMs: options.timeoutMs,
        idempotencyKey: message.idempotency_key,
      });
      if (response.status < 300) {
        const id = asString(asRecord(asArray(response.body.messages)[0]).id);
        if (id) return { external_id: id };
        throw new AppError('TEMPLATE_NOT_CONFIRMED', 'The provider answered without a message id.', {
          provider_code: 'no_message_id',
          provider_message: '',
        });
      }
      throw mapError(response.status, asRecord(response.body.error), response.headers);
    },

    async account(instance: ChatInstanceRecord): Promise<ProviderAccount> {
      const response = await providerCall(url(instance), { method: 'GET', token: options.token, timeoutMs: options.timeoutMs });
      if (response.status >= 300) throw mapError(response.status, asRecord(response.body.error), response.headers);
      return { payment_method_configured: response.body.payment_method_configured !== false };
    },

    async registerTemplate(instance: ChatInstanceRecord, template: TemplateRegistration): Promise<void> {
      const response = await providerCall(url(instance, '/message_templates'), {
        method: 'POST',
        token: options.token,
        body: template,
        timeoutMs: options.timeoutMs,
      });
      if (response.status >= 300) throw mapError(response.status, asRecord(response.body.error), response.headers);
    },

    parseCallback(body: unknown): ProviderCallback[] {
      const callbacks: ProviderCallback[] = [];
      for (const entry of asArray(asRecord(body).entry)) {
        for (const change of asArray(asRecord(entry).changes)) {
          const { field, value } = asRecord(change) as { field?: unknown; value?: unknown };
          const v = asRecord(value);
          const ref = asString(asRecord(v.metadata).phone_number_id) ?? asString(asRecord(entry).id) ?? '';
          if (field === 'messages') callbacks.push(...messageChanges(ref, v));
          if (field === 'account_update') callbacks.push({ kind: 'connection', ref, connected: v.event !== 'DISCONNECTED' });
          if (field === 'message_template_status_update') {
            const reason = asString(v.reason);
            callbacks.push({
              kind: 'template_status',
              ref,
              name: asString(v.message_template_name) ?? '',
              language: asString(v.message_template_language) ?? '',
              status: asString(v.event) ?? '',
              reason: reason && reason !== 'NONE' ? reason : null,
            });
          }
        }
      }
      return callbacks;
    },
  };
}

function wireMessage(message: OutgoingMessage): Record<string, unknown> {
  const base = { messaging_product: 'chatapp', recipient_type: 'individual', to: message.to };
  if (message.template) {
    return {
      ...base,
      type: 'template',
      template: { name: message.template.name, language: { code: message.template.language }, components: message.template.components },
    };
  }
  if (message.type === 'text') return { ...base, type: 'text', text: { body: message.content } };
  return { ...base, type: message.type, [message.type]: { link: message.media_url, caption: message.content ?? undefined } };
}

function mapError(status: number, error: Record<string, unknown>, headers: IncomingHttpHeaders): AppError {
  const code = asString(error.code) ?? `http_${status}`;
  const text = asString(error.message) ?? 'The provider refused the send.';
  if (status === 429 || RATE_LIMIT_CODES.has(code)) return rateLimited('CHATAPP_INSTANCE_RATE_LIMIT', retryAfterSeconds(headers, 60));
  if (WINDOW_CODES.has(code))
    return new AppError('OUTSIDE_MESSAGING_WINDOW', `The provider refused free text outside the 24-hour window (${code}).`);
  if (DISCONNECTED_CODES.has(code))
    return new AppError('CHANNEL_DISCONNECTED', `The official number is not connected at the provider (${code}): ${text}`);
  return new AppError('TEMPLATE_SEND_ERROR', `The cloud provider refused the send (${code}): ${text}`, {
    provider_code: code,
    provider_message: text,
  });
}

function messageChanges(ref: string, value: Record<string, unknown>): ProviderCallback[] {
  const names = new Map(
    asArray(value.contacts).map((c) => [asString(asRecord(c).wa_id) ?? '', asString(asRecord(asRecord(c).profile).name)]),
  );
  const out: ProviderCallback[] = [];
  for (const raw of asArray(value.messages)) {
    const m = asRecord(raw);
    const from = asString(m.from) ?? '';
    const at = new Date(Number(asString(m.timestamp) ?? 0) * 1000);
    const type = asString(m.type) ?? 'unsupported';
    if (type === 'edit') {
      const edit = asRecord(m.edit);
      out.push({ kind: 'edit', ref, external_id: asString(edit.original_id) ?? '', text: asString(asRecord(edit.text).body) ?? '', at });
      continue;
    }
    if (type === 'revoke') {
      out.push({ kind: 'delete', ref, external_id: asString(asRecord(m.revoke).original_id) ?? '', at });
      continue;
    }
    if (type === 'reaction') {
      const reaction = asRecord(m.reaction);
      const emoji = asString(reaction.emoji) ?? '';
      out.push({ kind: 'reaction', ref, external_id: asString(reaction.message_id) ?? '', from, emoji, key: asString(m.id) ?? '', at });
      continue;
    }
    const media = asRecord(m[type]);
    out.push({
      kind: 'message',
      ref,
      from,
      from_name: names.get(from) ?? null,
      external_id: asString(m.id) ?? '',
      at,
      type: ['text', 'image', 'audio', 'video', 'document', 'sticker', 'location'].includes(type) ? type : 'unsupported',
      text: type === 'text' ? asString(asRecord(m.text).body) : asString(media.caption),
      media_url: asString(media.link),
    });
  }
  for (const raw of asArray(value.statuses)) {
    const s = asRecord(raw);
    const status = asString(s.status);
    if (status !== 'sent' && status !== 'delivered' && status !== 'read' && status !== 'failed') continue;
    const error = asRecord(asArray(s.errors)[0]);
    out.push({
      kind: 'status',
      ref,
      external_id: asString(s.id) ?? '',
      status,
      error:
        status === 'failed'
          ? {
              code: asString(error.code) ?? 'unknown',
              message: asString(error.title) ?? asString(error.message) ?? 'The provider reported a failure.',
            }
          : null,
      at: new Date(Number(asString(s.timestamp) ?? 0) * 1000),
    });
  }
  return out;
}
