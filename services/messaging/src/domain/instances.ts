import { notFound, type PageRequest } from '@crm/shared';
import { CHATAPP_KINDS, type InstanceKind } from '@crm/shared/schemas';
import type { MessagingDeps } from './deps';
import { viewChatInstance, viewTemplate } from './views';

/** #55: the chatapp numbers (qrcode and official); pages of the other channels are not chat instances. */
export async function listChatInstances(
  deps: MessagingDeps,
  orgId: string,
  query: PageRequest & { channel?: string | null; status?: string | null },
) {
  const kinds: InstanceKind[] = query.channel ? CHATAPP_KINDS.filter((kind) => kind === query.channel) : [...CHATAPP_KINDS];
  const [page, total] = await Promise.all([
    deps.instances.list(orgId, { ...query, kinds }),
    deps.instances.count(orgId, [...CHATAPP_KINDS]),
  ]);
  return { items: page.items.map(viewChatInstance), hasMore: page.hasMore, next: page.next, total };
}

export async function getChatInstance(deps: MessagingDeps, orgId: string, id: string) {
  const record = await deps.instances.getById(orgId, id);
  if (!record || !(CHATAPP_KINDS as readonly string[]).includes(record.kind)) throw notFound('chat instance');
  return viewChatInstance(record);
}

/** #57: the templates of a number; always empty for a QR-code number (catalogue). */
export async function listTemplates(
  deps: MessagingDeps,
  orgId: string,
  instanceId: string,
  query: PageRequest & { status?: string | null; language?: string | null; category?: string | null; name?: string | null },
) {
  await getChatInstance(deps, orgId, instanceId);
  const [page, total] = await Promise.all([deps.templates.list(orgId, instanceId, query), deps.templates.count(orgId, instanceId)]);
  return { items: page.items.map(viewTemplate), hasMore: page.hasMore, next: page.next, total };
}
