import type { KeysetPosition } from '@crm/shared';
import { INSTANCE_KINDS } from '@crm/shared/schemas';
import { templateRegistration } from '@crm/messaging/src/providers/provider';
import type { ChatInstanceRecord } from '@crm/messaging/src/repository/chat-instance.repository';
import type { MessagingDeps } from '@crm/messaging/src/domain/deps';

/**
 * Local development only: the provider simulator keeps its numbers and templates in memory, so after a restart
 * (a second `npm start`) it no longer knows an existing organization's templates (template sends fail with
 * 132001) nor which number `npm run sim -- inbound` should write to. This tells it again: every number with its
 * connection, every template of the official numbers with its status; connected QR-code numbers last, so that the
 * simulator's default number is one a person can write to.
 */
export async function restoreSimulator(deps: MessagingDeps, input: { orgId: string; simUrl: string }) {
  const instances: ChatInstanceRecord[] = [];
  for (const kind of INSTANCE_KINDS) {
    instances.push(...(await everyPage((after) => deps.instances.list(input.orgId, { kinds: [kind], limit: 100, after }))));
  }
  const order = (i: ChatInstanceRecord) => (i.kind === 'qrcode' ? 1 : 0) + (i.status === 'connected' ? 1 : 0);
  let templates = 0;
  for (const instance of instances.sort((a, b) => order(a) - order(b))) {
    const response = await fetch(`${input.simUrl}/control/numbers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ channel: instance.kind, to_number: instance.provider_ref, connected: instance.status === 'connected' }),
    });
    if (!response.ok) throw new Error(`the simulator refused ${instance.provider_ref}: ${response.status} ${await response.text()}`);
    if (instance.kind !== 'official') continue;
    for (const template of await everyPage((after) => deps.templates.list(input.orgId, instance.id, { limit: 100, after }))) {
      await deps.providers.official.registerTemplate?.(instance, templateRegistration(template));
      templates++;
    }
  }
  return { numbers: instances.length, templates };
}

/** Every item of a keyset-paged repository list. */
async function everyPage<T>(
  list: (after: KeysetPosition | undefined) => Promise<{ items: T[]; next?: KeysetPosition | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let after: KeysetPosition | undefined;
  do {
    const page = await list(after);
    items.push(...page.items);
    after = page.next;
  } while (after);
  return items;
}
