import type { Storage } from '@crm/shared';

export interface TagCount {
  name: string;
  count: number;
}

export type TagRepository = ReturnType<typeof createTagRepository>;

/** Tags are an aggregate over the live contacts, companies and deals of one organization. */
export function createTagRepository({ connection: db }: Storage) {
  const collections = ['contacts', 'companies', 'deals'].map((name) => db.collection(name));
  return {
    /** Every tag of the organization with its uses, ordered by count descending, then name. */
    async counts(orgId: string): Promise<TagCount[]> {
      const totals = new Map<string, number>();
      for (const collection of collections) {
        const rows = await collection
          .aggregate<{ _id: string; n: number }>([
            { $match: { org_id: orgId, deleted_at: null } },
            { $project: { tags: 1 } },
            { $unwind: '$tags' },
            { $group: { _id: '$tags', n: { $sum: 1 } } },
          ])
          .toArray();
        for (const row of rows) totals.set(row._id, (totals.get(row._id) ?? 0) + row.n);
      }
      return [...totals]
        .map(([name, count]) => ({ name, count }))
        .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}
