import type { Storage } from '@crm/shared';

export interface DealSummaryRow {
  id: string;
  title: string;
  value: number;
  status: string;
  stage: { id: string; name: string };
}

export type LinksRepository = ReturnType<typeof createLinksRepository>;

/**
 * Counts and summaries of the records linked to contacts and companies, computed from the linked records
 * themselves on read: the values are real and cannot drift, whatever writes run concurrently.
 */
export function createLinksRepository({ connection: db }: Storage) {
  const notes = db.collection('notes');
  const deals = db.collection('deals');
  const companies = db.collection('companies');
  const funnels = db.collection('funnels');

  async function countGrouped(
    collection: typeof notes,
    field: string,
    orgId: string,
    ids: string[],
    extra: object = {},
  ): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await collection
      .aggregate<{ _id: string; n: number }>([
        { $match: { org_id: orgId, deleted_at: null, [field]: { $in: ids }, ...extra } },
        { $unwind: `$${field}` },
        { $match: { [field]: { $in: ids } } },
        { $group: { _id: `$${field}`, n: { $sum: 1 } } },
      ])
      .toArray();
    return new Map(rows.map((row) => [row._id, row.n]));
  }

  return {
    notesByContact: (orgId: string, contactIds: string[]) => countGrouped(notes, 'contact_id', orgId, contactIds),
    dealsByContact: (orgId: string, contactIds: string[]) => countGrouped(deals, 'contact_ids', orgId, contactIds),

    async companyNames(orgId: string, ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await companies.find({ org_id: orgId, _id: { $in: [...new Set(ids)] } as never }, { projection: { name: 1 } }).toArray();
      return new Map(rows.map((row) => [String(row._id), String(row.name)]));
    },

    async companyExists(orgId: string, id: string): Promise<boolean> {
      return (await companies.countDocuments({ _id: id as never, org_id: orgId, deleted_at: null }, { limit: 1 })) === 1;
    },

    /**
     * The contact's deals for GET /v1/contacts/{id}: newest first, at most `limit`, and how many it has — from the
     * same query when it has fewer than `limit` (the common case), else one count more.
     */
    async contactDeals(orgId: string, contactId: string, limit: number): Promise<{ count: number; summaries: DealSummaryRow[] }> {
      const linked = { org_id: orgId, deleted_at: null, contact_ids: contactId };
      const rows = await deals
        .find(linked, { projection: { title: 1, value: 1, status: 1, stage_id: 1 } })
        .sort({ created_at: -1, _id: -1 })
        .limit(limit)
        .toArray();
      const [count, summaries] = await Promise.all([
        rows.length < limit ? rows.length : deals.countDocuments(linked),
        summarize(orgId, rows),
      ]);
      return { count, summaries };
    },
  };

  /** Deal rows as summaries. Stage names live in the funnels (stages are embedded there) and can be renamed: resolved on read. */
  async function summarize(orgId: string, rows: Array<Record<string, unknown>>): Promise<DealSummaryRow[]> {
    const stageNames = new Map<string, string>();
    if (rows.length > 0) {
      const owning = await funnels.find({ org_id: orgId }, { projection: { stages: 1 } }).toArray();
      for (const funnel of owning)
        for (const stage of (funnel.stages ?? []) as Array<{ id: string; name: string }>) stageNames.set(stage.id, stage.name);
    }
    return rows.map((row) => ({
      id: String(row._id),
      title: String(row.title),
      value: Number(row.value ?? 0),
      status: String(row.status),
      stage: { id: String(row.stage_id), name: stageNames.get(String(row.stage_id)) ?? '' },
    }));
  }
}
