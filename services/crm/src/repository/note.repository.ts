import {
  keyset,
  type KeysetPage,
  type KeysetPosition,
  OUTBOX_FIELDS,
  type OutboxEntry,
  outboxOnInsert,
  recordOf,
  toPage,
} from '@crm/shared';
import { Schema, type Connection } from 'mongoose';

/** The record a note hangs on: exactly one of a contact and a deal. */
export type NoteParent = { kind: 'contact'; id: string } | { kind: 'deal'; id: string };

export interface NoteRecord {
  id: string;
  org_id: string;
  contact_id?: string;
  deal_id?: string;
  content: string;
  color: string;
  category: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

interface NoteDoc extends Omit<NoteRecord, 'id'> {
  _id: string;
}

const noteSchema = new Schema<NoteDoc>(
  {
    _id: { type: String, required: true },
    org_id: { type: String, required: true },
    contact_id: { type: String, default: undefined },
    deal_id: { type: String, default: undefined },
    content: { type: String, required: true },
    color: { type: String, required: true },
    category: { type: String, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
    deleted_at: { type: Date, default: null },
    ...OUTBOX_FIELDS,
  },
  { versionKey: false, collection: 'notes', minimize: false },
);
// Lists and the notes_count of contacts and deals read by parent.
noteSchema.index({ org_id: 1, contact_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
noteSchema.index({ org_id: 1, deal_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
noteSchema.index({ _outbox_pending: 1 });

const parentField = (parent: NoteParent) => (parent.kind === 'contact' ? 'contact_id' : 'deal_id');

export type NoteRepository = ReturnType<typeof createNoteRepository>;

export function createNoteRepository(db: Connection) {
  const Note = db.model<NoteDoc>('Note', noteSchema);
  const toRecord = (doc: NoteDoc): NoteRecord => recordOf(doc);
  /** Every query names the tenant, the parent and the soft-delete flag: a note of another parent is not found. */
  const live = (orgId: string, parent: NoteParent) => ({ org_id: orgId, [parentField(parent)]: parent.id, deleted_at: null });

  return {
    collection: Note.collection,

    async insert(record: NoteRecord, events: OutboxEntry[]): Promise<void> {
      const { id, ...rest } = record;
      await Note.collection.insertOne({ _id: id, ...rest, ...outboxOnInsert(events) } as never);
    },

    async getById(orgId: string, parent: NoteParent, id: string): Promise<NoteRecord | null> {
      const doc = await Note.findOne({ _id: id, ...live(orgId, parent) }).lean<NoteDoc>();
      return doc ? toRecord(doc) : null;
    },

    async countByParent(orgId: string, parent: NoteParent): Promise<number> {
      return Note.countDocuments(live(orgId, parent));
    },

    async list(orgId: string, parent: NoteParent, limit: number, after: KeysetPosition | undefined): Promise<KeysetPage<NoteRecord>> {
      const { filter, sort } = keyset('created_at', 'desc', after && { ...after, value: new Date(String(after.value)) });
      const rows = await Note.find({ $and: [live(orgId, parent), filter] })
        .sort(sort)
        .limit(limit + 1)
        .lean<NoteDoc[]>();
      const page = toPage(rows, limit, (row) => row.created_at.toISOString());
      return { ...page, items: page.items.map(toRecord) };
    },

    async update(
      orgId: string,
      parent: NoteParent,
      id: string,
      set: Partial<Pick<NoteRecord, 'content' | 'color' | 'category' | 'updated_at' | 'deleted_at'>>,
    ): Promise<NoteRecord | null> {
      const doc = await Note.findOneAndUpdate({ _id: id, ...live(orgId, parent) }, { $set: set }, { new: true }).lean<NoteDoc>();
      return doc ? toRecord(doc) : null;
    },
  };
}
