import type { Storage } from '@crm/shared';
import type { mongo } from 'mongoose';

type Document = mongo.Document;

export interface DealSummaryRow {
  id: string;
  title: string;
  value: number;
  status: string;
  stage: { id: string; name: string };
}

/** What GET /v1/contacts/{id} shows beside the record: its live notes and deals, counted, and its newest deals. */
export interface ContactDetailLinks {
  notesCount: number;
  dealsCount: number;
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

    /**
     * The contact's notes and deals counts and its newest `limit` deals as branches of one query: the contact
     * repository runs them beside the contact's own lookup (getByIdWith), `contactDetail` alone.
     */
    detailBranches(orgId: string, contactId: string, limit: number): LinkBranch[] {
      const live = { org_id: orgId, deleted_at: null };
      const count = { $group: { _id: null, n: { $sum: 1 } } };
      const dealsOf = { $match: { ...live, contact_ids: contactId } };
      return [
        { coll: notes.collectionName, pipeline: [{ $match: { ...live, contact_id: contactId } }, count, { $set: { [LINK]: 'notes' } }] },
        { coll: deals.collectionName, pipeline: [dealsOf, count, { $set: { [LINK]: 'deals' } }] },
        {
          coll: deals.collectionName,
          pipeline: [
            dealsOf,
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

    /** The rows of the detail branches as counts and summaries (stage names resolved: see summarize). */
    async detailOf(orgId: string, rows: Document[]): Promise<ContactDetailLinks> {
      const count = (kind: string) => Number(rows.find((row) => row[LINK] === kind)?.n ?? 0);
      const dealRows = rows.filter((row) => row[LINK] === 'deal');
      return { notesCount: count('notes'), dealsCount: count('deals'), deals: await summarize(orgId, dealRows) };
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
