import type { InstanceKind } from '@crm/shared/schemas';
import type { ChatInstanceRecord } from '../repository/chat-instance.repository';

/** What the send path asks of a provider; the adapter turns it into its own wire format. */
export interface OutgoingMessage {
  instance: ChatInstanceRecord;
  /** The recipient at the channel: digits of the phone (official), a jid (qrcode), a page-scoped id or username. */
  to: string;
  type: string;
  content: string | null;
  media_url: string | null;
  template: { name: string; language: string; components: unknown[] } | null;
  /** Our message id: the provider's idempotency key for this send. */
  idempotency_key: string;
}

export interface ProviderAccount {
  /** False when the provider reports no payment method: every official send would fail later with 131042. */
  payment_method_configured: boolean;
}

export interface TemplateRegistration {
  name: string;
  language: string;
  category: string;
  components: unknown[];
  /** The review outcome to record: the simulator honours it; a real provider reviews the template itself. */
  status?: string;
}

/** What is registered with the provider for a stored template. */
export const templateRegistration = (template: TemplateRegistration): TemplateRegistration => ({
  name: template.name,
  language: template.language,
  category: template.category,
  components: template.components,
  status: template.status,
});

/** One normalized provider callback; adapters parse their own shapes into these. */
export type ProviderCallback =
  | {
      kind: 'message';
      ref: string;
      from: string;
      from_name: string | null;
      external_id: string;
      at: Date;
      type: string;
      text: string | null;
      media_url: string | null;
    }
  | { kind: 'outgoing'; ref: string; to: string; external_id: string; at: Date; text: string | null }
  | {
      kind: 'status';
      ref: string;
      external_id: string;
      status: 'sent' | 'delivered' | 'read' | 'failed';
      error: { code: string; message: string } | null;
      at: Date;
    }
  | { kind: 'edit'; ref: string; external_id: string; text: string; at: Date }
  /** The contact deleted a message (inbound or outbound) for everyone. */
  | { kind: 'delete'; ref: string; external_id: string; at: Date }
  /** The contact reacted to a message; `emoji` is empty when the reaction was removed. `key` tells repeats apart. */
  | { kind: 'reaction'; ref: string; external_id: string; from: string; emoji: string; key: string; at: Date }
  | { kind: 'connection'; ref: string; connected: boolean }
  /** A QR-code session needs pairing again: the code to scan on the phone, and when it stops being valid. */
  | { kind: 'qr'; ref: string; qr_code: string; expires_at: Date | null }
  | { kind: 'template_status'; ref: string; name: string; language: string; status: string; reason: string | null };

/** One channel provider. Every call has a timeout; failures throw AppErrors with the catalogue's codes. */
export interface ProviderAdapter {
  readonly kind: InstanceKind;
  /** The header carrying `sha256=<hex HMAC of the raw body>` on callbacks. */
  readonly signatureHeader: string;
  send(message: OutgoingMessage): Promise<{ external_id: string }>;
  parseCallback(body: unknown): ProviderCallback[];
  account?(instance: ChatInstanceRecord): Promise<ProviderAccount>;
  registerTemplate?(instance: ChatInstanceRecord, template: TemplateRegistration): Promise<void>;
}

export type Providers = Record<InstanceKind, ProviderAdapter>;
