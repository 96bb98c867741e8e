import type { AudienceContact } from '@crm/proto/gen/crm/v1/audiences';
import { newId } from '@crm/shared';
import type { MessagingDeps } from '../domain/deps';
import { classifyAudience } from '../domain/broadcasts/audience';
import { completeIfDone } from '../domain/broadcasts/final-status';
import { EMPTY_STATS, type BroadcastRecord, type BroadcastTemplate } from '../repository/broadcast.repository';
import type { RecipientRecord } from '../repository/recipient.repository';

/**
 * Writes a launched broadcast's recipients once: every contact of the audience as `pending` (spread evenly over
 * the numbers) or `excluded` with its reason, then one lane per number, then `sending`. A replica holds a lease
 * on the build; if it dies, another replica builds again from the start: the audience comes back in the same
 * order and rows already written keep their ids, so nobody is added twice and every message id stays the same.
 */
export async function buildRecipientList(deps: MessagingDeps, broadcast: BroadcastRecord): Promise<void> {
  const { records, recipients, lanes, settings } = deps.broadcasts;
  const leaseUntil = () => new Date(deps.now().getTime() + settings.leaseMs);
  if (!(await records.leaseMaterialization(broadcast.id, deps.now(), leaseUntil(), false))) return;

  const stats = { ...EMPTY_STATS };
  let seq = 0;
  let reached = 0;
  const plan = { audience: broadcast.audience, marketing: broadcast.cloud_template?.category === 'marketing' };
  for await (const page of classifyAudience(deps, broadcast.org_id, plan)) {
    const rows: RecipientRecord[] = page.map((entry) => {
      const instance = entry.exclusion ? null : broadcast.instances[reached++ % broadcast.instances.length];
      if (entry.exclusion) stats.excluded++;
      else stats.total++;
      return {
        id: `${broadcast.id}:${entry.contact.id}`,
        org_id: broadcast.org_id,
        broadcast_id: broadcast.id,
        seq: seq++,
        contact: { id: entry.contact.id, name: entry.contact.name },
        instance_id: instance?.id ?? null,
        address: entry.address,
        status: entry.exclusion ? 'excluded' : 'pending',
        exclusion_reason: entry.exclusion,
        message_id: newId('message'),
        params: broadcast.cloud_template && !entry.exclusion ? templateParams(broadcast.cloud_template, entry.contact) : {},
        error: null,
        sent_at: null,
        updated_at: deps.now(),
      };
    });
    await recipients.insertMany(rows);
    if (!(await records.leaseMaterialization(broadcast.id, deps.now(), leaseUntil(), true))) return;
  }
  const used = broadcast.instances.slice(0, Math.min(reached, broadcast.instances.length)).map((instance) => instance.id);
  await lanes.createFor(broadcast.org_id, broadcast.id, used, 'active', deps.now());
  await records.finishMaterialization(broadcast.id, stats, deps.now());
  if (used.length === 0) await completeIfDone(deps, broadcast.id);
}

/**
 * The values of the template's variables for one contact, frozen at launch: a static value, or the contact's
 * field, or the variable's fallback when the contact has no such datum (never an empty parameter).
 */
export function templateParams(template: BroadcastTemplate, contact: AudienceContact): Record<string, string> {
  const params: Record<string, string> = {};
  for (const variable of template.variables) {
    const value = variable.source_type === 'static' ? variable.value : contactField(contact, variable.source_key ?? '');
    params[`${variable.component}.${variable.key}`] = value?.trim() ? value : (variable.fallback ?? '');
  }
  return params;
}

function contactField(contact: AudienceContact, key: string): string | null {
  if (key.startsWith('custom_fields.')) {
    const value = (contact.custom_fields as Record<string, unknown> | undefined)?.[key.slice('custom_fields.'.length)];
    if (value === null || value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }
  const fields: Record<string, string | undefined> = {
    name: contact.name,
    first_name: contact.name.split(/\s+/)[0],
    email: contact.email,
    phone: contact.phone,
    source: contact.source,
  };
  return fields[key] ?? null;
}

/** Terminal statuses of a broadcast that sent: which one follows from the recipients. */
