import { routedFilter, type Storage } from '@crm/shared';

export interface CompanyLinkCounts {
  contacts_count: number;
  deals_count: number;
  total_deals_value: number;
}

export type CompanyLinksRepository = ReturnType<typeof createCompanyLinksRepository>;

/**
 * What links to companies, counted from the linked contacts and deals themselves on every read: the values are
 * real and cannot drift under concurrent writes. Deals are read raw (their module owns the collection): live
 * deals of every status count, and total_deals_value sums their `value`.
 */
export function createCompanyLinksRepository({ connection: db }: Storage) {
  const contacts = db.collection('contacts');
  const deals = db.collection('deals');

  return {
    async countsOf(orgId: string, companyIds: string[]): Promise<Map<string, CompanyLinkCounts>> {
      const result = new Map<string, CompanyLinkCounts>(
        companyIds.map((id) => [id, { contacts_count: 0, deals_count: 0, total_deals_value: 0 }]),
      );
      if (companyIds.length === 0) return result;
      const match = { org_id: orgId, deleted_at: null, company_id: { $in: [...new Set(companyIds)] } };
      const [contactRows, dealRows] = await Promise.all([
        contacts
          .aggregate<{ _id: string; n: number }>([
            { $match: routedFilter(db, 'contacts', match) },
            { $group: { _id: '$company_id', n: { $sum: 1 } } },
          ])
          .toArray(),
        deals
          .aggregate<{ _id: string; n: number; value: number }>([
            { $match: routedFilter(db, 'deals', match) },
            { $group: { _id: '$company_id', n: { $sum: 1 }, value: { $sum: '$value' } } },
          ])
          .toArray(),
      ]);
      for (const row of contactRows) {
        const counts = result.get(row._id);
        if (counts) counts.contacts_count = row.n;
      }
      for (const row of dealRows) {
        const counts = result.get(row._id);
        if (!counts) continue;
        counts.deals_count = row.n;
        counts.total_deals_value = Number(row.value);
      }
      return result;
    },
  };
}
