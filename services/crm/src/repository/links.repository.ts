import { routedFilter, type Storage } from '@crm/shared';
import type { ClientSession, mongo } from 'mongoose';

type Document = mongo.Document;

export interface DealSummaryRow {
  id: string;
  title: string;
  value: number;
  status: string;
  stage: { id: string; name: string };
}

/** What GET /v1/contacts/{id} shows beside the record (whose counts are stored on it): its newest deals. */
export interface ContactDetailLinks {
  deals: DealSummaryRow[];
}

/** One branch of the detail query: a collection and the pipeline answering its tagged rows. */
export interface LinkBranch {
  coll: string;
  pipeline: Document[];
}

/** The field that tags the detail query's rows with what they are (a stored record never has it). */
const LINK = '_link';

export type LinksRepository = ReturnType<typeof createLinksRepository>;

/**
 * Counts and summaries of the records linked to contacts and companies, computed from the linked records
 * themselves: the counts a contact stores are computed here where they are not stored yet (or recomputed, a merge).
 */
export function createLinksRepository({ connection: db }: Storage) {
  const notes = db.collection('notes');
  const deals = db.collection('deals');
  const companies = db.collection('companies');
  const funnels = db.collection('funnels');

  /** One counting stage per linked collection: its live rows linked to any of `ids`, one row per link. */
  const linkedRows = (collection: string, orgId: string, field: string, ids: string[], kind: string) => [
    { $match: routedFilter(db, collection, { org_id: orgId, deleted_at: null, [field]: { $in: ids } }) },
    { $unwind: `$${field}` },
    { $match: { [field]: { $in: ids } } },
    { $project: { _id: 0, kind: { $literal: kind }, contact: `$${field}` } },
  ];

  return {
    /**
     * How many live notes and deals link to each contact, in one command: the notes' rows and the deals' rows
     * ($unionWith) grouped together. In a transaction (`session`: the counts of its snapshot) it is two, one per
     * collection: a transaction takes no $unionWith.
     */
    async countsByContact(
      orgId: string,
      contactIds: string[],
      session?: ClientSession,
    ): Promise<{ notes: Map<string, number>; deals: Map<string, number> }> {
      const counts = { notes: new Map<string, number>(), deals: new Map<string, number>() };
      if (contactIds.length === 0) return counts;
      const group = { $group: { _id: { kind: '$kind', contact: '$contact' }, n: { $sum: 1 } } };
      const notesRows = linkedRows(notes.collectionName, orgId, 'contact_id', contactIds, 'notes');
      const dealsRows = linkedRows(deals.collectionName, orgId, 'contact_ids', contactIds, 'deals');
      const pipelines: Array<[mongo.Collection, Document[]]> = session
        ? [
            [notes, [...notesRows, group]],
            [deals, [...dealsRows, group]],
          ]
        : [[notes, [...notesRows, { $unionWith: { coll: deals.collectionName, pipeline: dealsRows } }, group]]];
      for (const [collection, pipeline] of pipelines) {
        const rows = await collection
          .aggregate<{ _id: { kind: 'notes' | 'deals'; contact: string }; n: number }>(pipeline, { session })
          .toArray();
        for (const { _id, n } of rows) counts[_id.kind].set(_id.contact, n);
      }
      return counts;
    },

    async companyNames(orgId: string, ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const rows = await companies
        .find(routedFilter(db, companies.collectionName, { _id: { $in: [...new Set(ids)] } as never, org_id: orgId }), {
          projection: { name: 1 },
        })
        .toArray();
      return new Map(rows.map((row) => [String(row._id), String(row.name)]));
    },

    async companyExists(orgId: string, id: string): Promise<boolean> {
      const filter = routedFilter(db, companies.collectionName, { _id: id as never, org_id: orgId, deleted_at: null });
      return (await companies.countDocuments(filter, { limit: 1 })) === 1;
    },

    /**
     * The contact's newest `limit` deals as branches of one query: the contact repository runs them beside the
     * contact's own lookup (getByIdWith), `contactDetail` alone. (Its counts are stored on the contact.)
     */
    detailBranches(orgId: string, contactId: string, limit: number): LinkBranch[] {
      return [
        {
          coll: deals.collectionName,
          pipeline: [
            { $match: routedFilter(db, deals.collectionName, { org_id: orgId, deleted_at: null, contact_ids: contactId }) },
            { $sort: { created_at: -1, _id: -1 } },
            { $limit: limit },
            { $project: { title: 1, value: 1, status: 1, stage_id: 1, [LINK]: 'deal' } },
          ],
        },
      ];
    },

    /** The detail of a contact whose record is in hand: its branches in one command. */
    async contactDetail(orgId: string, contactId: string, limit: number): Promise<ContactDetailLinks> {
      const [first, ...rest] = this.detailBranches(orgId, contactId, limit);
      const rows = await db
        .collection(first!.coll)
        .aggregate([...first!.pipeline, ...rest.map((branch) => ({ $unionWith: branch }))])
        .toArray();
      return this.detailOf(orgId, rows);
    },

    /** The rows of the detail branches as summaries (stage names resolved: see summarize). */
    async detailOf(orgId: string, rows: Document[]): Promise<ContactDetailLinks> {
      return {
        deals: await summarize(
          orgId,
          rows.filter((row) => row[LINK] === 'deal'),
        ),
      };
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
