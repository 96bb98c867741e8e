import { newEvent, notFound, type OutboxEntry, type PlannedChange, writeRevision } from '@crm/shared';
import type { ProviderCallback } from '../providers/provider';
import type { ChatInstanceRecord, InstanceStatus } from '../repository/chat-instance.repository';
import type { MessagingDeps } from './deps';
import type { CallbackOutcome } from './message-callbacks';
import { viewChatInstance, viewTemplate, type ChatInstanceView } from './views';

type Callback<K extends ProviderCallback['kind']> = Extract<ProviderCallback, { kind: K }>;

/** The number's status with its event; a repeated provider callback changes nothing and raises nothing. */
export async function applyConnection(deps: MessagingDeps, instance: ChatInstanceRecord, connected: boolean): Promise<CallbackOutcome> {
  const status: InstanceStatus = connected ? 'connected' : 'disconnected';
  await writeInstance(deps, instance, (current) => {
    if (current.status === status) return null;
    const at = deps.now();
    return {
      set: { status, updated_at: at, ...(connected ? { qr_code: null } : {}) },
      events: (view) => [newEvent(instance.org_id, connected ? 'channel.connected' : 'channel.disconnected', { object: view }, at)],
    };
  });
  return 'applied';
}

/**
 * The QR-code bridge lost its pairing and shows a new code: the number is `connecting` until the phone scans it
 * (then a connection callback makes it `connected`), and channel.qr.updated carries the code to show an operator.
 * Each new code raises the event once; the bridge retrying the same code raises nothing.
 */
export async function applyQrCode(deps: MessagingDeps, instance: ChatInstanceRecord, callback: Callback<'qr'>): Promise<CallbackOutcome> {
  await writeInstance(deps, instance, (current) => {
    if (current.qr_code === callback.qr_code) return null;
    const at = deps.now();
    const expiresAt = callback.expires_at ? callback.expires_at.toISOString() : null;
    return {
      set: { status: 'connecting', qr_code: callback.qr_code, updated_at: at },
      events: (view) => [
        newEvent(instance.org_id, 'channel.qr.updated', { object: view, qr_code: callback.qr_code, expires_at: expiresAt }, at),
      ],
    };
  });
  return 'applied';
}

/**
 * The provider's review of a template: the stored status follows it, and an approval or a rejection raises
 * template.approved or template.rejected (with the provider's reason). A repeated callback changes nothing.
 */
export async function applyTemplateStatus(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  callback: Callback<'template_status'>,
): Promise<CallbackOutcome> {
  const template = await deps.templates.findOne(instance.id, callback.name, callback.language);
  if (!template) {
    deps.logger.warn(
      { instance: instance.id, template: callback.name, language: callback.language },
      'review of an unknown template; ignored',
    );
    return 'ignored';
  }
  if (template.status === callback.status) return 'applied';
  const at = deps.now();
  const next = viewTemplate({ ...template, status: callback.status, updated_at: at });
  const events: OutboxEntry[] =
    callback.status === 'APPROVED'
      ? [newEvent(instance.org_id, 'template.approved', { object: next }, at)]
      : callback.status === 'REJECTED'
        ? [newEvent(instance.org_id, 'template.rejected', { object: next, reason: callback.reason }, at)]
        : [];
  // Conditional on the status read: of two deliveries of one review, one applies it.
  await deps.templates.setStatus(template, callback.status, at, events);
  return 'applied';
}

function writeInstance(
  deps: MessagingDeps,
  instance: ChatInstanceRecord,
  plan: (current: ChatInstanceRecord) => PlannedChange<ChatInstanceRecord, ChatInstanceView> | null,
): Promise<ChatInstanceView> {
  return writeRevision({
    read: async () => {
      const current = await deps.instances.getById(instance.org_id, instance.id);
      if (!current) throw notFound('chat instance');
      return current;
    },
    plan,
    view: viewChatInstance,
    write: (current, set, events) => deps.instances.updateAtRevision(instance.org_id, instance.id, current.rev, set, events),
  });
}
