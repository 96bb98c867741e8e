import type { Principal } from '../../http/route';

/**
 * A contact embeds records other scopes guard: its company's name (`read:companies`) and, in its detail, its
 * deals' titles and values (`read:deals`). A key without those scopes gets `company: null` and `deals: []`, so
 * one scope never reveals what another guards (docs/security.md). deals_count stays: a count, not the records.
 */
export function withoutUnreadable<T extends { company?: unknown; deals?: unknown[] }>(contact: T, principal: Principal): T {
  const readsCompanies = principal.scopes.includes('read:companies');
  const readsDeals = principal.scopes.includes('read:deals');
  if (readsCompanies && readsDeals) return contact;
  return {
    ...contact,
    ...(readsCompanies ? {} : { company: null }),
    ...(readsDeals || contact.deals === undefined ? {} : { deals: [] }),
  };
}
