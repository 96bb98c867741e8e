import type { AudienceContact } from '@crm/proto/gen/crm/v1/audiences';
import type { ExclusionReason } from '@crm/shared/schemas';
import type { MessagingDeps } from '../deps';
import type { BroadcastAudience } from '../../repository/broadcast.repository';

/** One contact of an audience and what becomes of it: sent to `address`, or excluded for a reason. */
export interface AudienceEntry {
  contact: AudienceContact;
  /** The chatapp address (`<digits>@<domain>`), or null when the contact has no number. */
  address: string | null;
  exclusion: ExclusionReason | null;
}

export interface AudiencePlan {
  audience: BroadcastAudience;
  /** An official broadcast with a marketing template: contacts who opted out of marketing are left out. */
  marketing: boolean;
}

/**
 * The audience, page by page, in the CRM's stable order (oldest contact first), each contact classified by the
 * exclusion rules in this order: no chatapp number, marketing opt-out, a number already reached by an earlier
 * contact of this audience. Reading it again gives the same answer, which is what makes a restarted build safe.
 */
export async function* classifyAudience(deps: MessagingDeps, orgId: string, plan: AudiencePlan): AsyncGenerator<AudienceEntry[]> {
  const { audience } = plan;
  const seen = new Set<string>();
  const stream = deps.broadcasts.audience.streamAudience({
    org_id: orgId,
    type: audience.type,
    tags: audience.tags,
    tags_operator: audience.tags_operator ?? 'or',
    contact_ids: audience.contact_ids,
    has_chatapp: audience.has_chatapp ?? undefined,
    source: audience.filters?.source ?? undefined,
    created_after: audience.filters?.created_after ?? undefined,
    created_before: audience.filters?.created_before ?? undefined,
    exclude_tags: audience.filters?.exclude_tags ?? [],
    page_size: 500,
  });
  for await (const page of stream) {
    const optedOut = plan.marketing
      ? await deps.broadcasts.optOuts.optedOut(
          orgId,
          page.contacts.map((contact) => contact.id),
        )
      : new Set<string>();
    yield page.contacts.map((contact) => {
      const digits = chatappDigits(contact);
      if (!digits) return { contact, address: null, exclusion: 'no_chatapp' };
      if (optedOut.has(contact.id)) return { contact, address: null, exclusion: 'marketing_opt_out' };
      if (seen.has(digits)) return { contact, address: null, exclusion: 'duplicate' };
      seen.add(digits);
      return { contact, address: contact.chatapp_jid ?? `${digits}@c.chatapp`, exclusion: null };
    });
  }
}

/** The contact's number as digits, from its chatapp id or its phone; duplicates are found by it. */
function chatappDigits(contact: Pick<AudienceContact, 'chatapp_jid' | 'phone'>): string {
  return (contact.chatapp_jid?.split('@')[0] ?? contact.phone ?? '').replace(/\D/g, '');
}

export interface AudienceCount {
  reached: number;
  excluded: Record<ExclusionReason, number>;
}

/** Counts an audience without writing anything: the estimate (#60) and the warm-up check before a launch. */
export async function countAudience(deps: MessagingDeps, orgId: string, plan: AudiencePlan): Promise<AudienceCount> {
  const count: AudienceCount = { reached: 0, excluded: { marketing_opt_out: 0, no_chatapp: 0, duplicate: 0 } };
  for await (const page of classifyAudience(deps, orgId, plan)) {
    for (const entry of page) {
      if (entry.exclusion) count.excluded[entry.exclusion]++;
      else count.reached++;
    }
  }
  return count;
}
