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

  /** One counting stage per linked collection: its live rows linked to any of `ids`, one row per link. */
  const linkedRows = (orgId: string, field: string, ids: string[], kind: string) => [
    { $match: { org_id: orgId, deleted_at: null, [field]: { $in: ids } } },
    { $unwind: `$${field}` },
    { $match: { [field]: { $in: ids } } },
    { $project: { _id: 0, kind: { $literal: kind }, contact: `$${field}` } },
  ];

  return {
    /**
     * How many live notes and deals link to each contact, in one command: the notes' rows and the deals' rows
     * ($unionWith) grouped together, so a page of contacts costs its own query and this one.
     */
    async countsByContact(orgId: string, contactIds: string[]): Promise<{ notes: Map<string, number>; deals: Map<string, number> }> {
      const counts = { notes: new Map<string, number>(), deals: new Map<string, number>() };
      if (contactIds.length === 0) return counts;
      const rows = await notes
        .aggregate<{ _id: { kind: 'notes' | 'deals'; contact: string }; n: number }>([
          ...linkedRows(orgId, 'contact_id', contactIds, 'notes'),
          { $unionWith: { coll: deals.collectionName, pipeline: linkedRows(orgId, 'contact_ids', contactIds, 'deals') } },
          { $group: { _id: { kind: '$kind', contact: '$contact' }, n: { $sum: 1 } } },
        ])
        .toArray();
      for (const { _id, n } of rows) counts[_id.kind].set(_id.contact, n);
      return counts;
    },

    /** Live deals linked to any of these contacts, each counted once (a merge's deals_count). */
    countDealsOfAny: (orgId: string, contactIds: string[]) =>
      deals.countDocuments({ org_id: orgId, deleted_at: null, contact_ids: { $in: contactIds } }),

    async companyNames(orgId: string, ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await companies.find({ org_id: orgId, _id: { $in: [...new Set(ids)] } as never }, { projection: { name: 1 } }).toArray();
      return new Map(rows.map((row) => [String(row._id), String(row.name)]));
    },

    async companyExists(orgId: string, id: string): Promise<boolean> {
      return (await companies.countDocuments({ _id: id as never, org_id: orgId, deleted_at: null }, { limit: 1 })) === 1;
    },

    /** The contact's deals for GET /v1/contacts/{id}: newest first, at most `limit`. */
    async dealSummaries(orgId: string, contactId: string, limit: number): Promise<DealSummaryRow[]> {
      const rows = await deals
        .find({ org_id: orgId, deleted_at: null, contact_ids: contactId }, { projection: { title: 1, value: 1, status: 1, stage_id: 1 } })
        .sort({ created_at: -1, _id: -1 })
        .limit(limit)
        .toArray();
      return summarize(orgId, rows);
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
