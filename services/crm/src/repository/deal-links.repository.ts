import { routedFilter, type Storage } from '@crm/shared';

export type DealLinksRepository = ReturnType<typeof createDealLinksRepository>;

/**
 * What hangs on deals, counted from the linked records on every read: real values that cannot drift. Notes
 * belong to the notes module; this reads their collection raw, as links.repository does for contacts.
 */
export function createDealLinksRepository({ connection: db }: Storage) {
  const notes = db.collection('notes');
  return {
    /** Live notes per deal; a deal without notes is absent from the map. */
    async notesByDeal(orgId: string, dealIds: string[]): Promise<Map<string, number>> {
      if (dealIds.length === 0) return new Map();
      const rows = await notes
        .aggregate<{ _id: string; n: number }>([
          { $match: routedFilter(db, 'notes', { org_id: orgId, deleted_at: null, deal_id: { $in: dealIds } }) },
          { $group: { _id: '$deal_id', n: { $sum: 1 } } },
        ])
        .toArray();
      return new Map(rows.map((row) => [row._id, row.n]));
    },
  };
}
