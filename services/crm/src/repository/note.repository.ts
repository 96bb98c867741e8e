import { type OutboxEntry, type PageRequest, RecordStore, type Storage } from '@crm/shared';
import { type ClientSession, Schema } from 'mongoose';

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

const noteSchema = new Schema(
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
  },
  { versionKey: false, collection: 'notes', minimize: false },
);
// Lists and the notes_count of contacts and deals read by parent.
noteSchema.index({ org_id: 1, contact_id: 1, deleted_at: 1, created_at: -1, _id: -1 });
noteSchema.index({ org_id: 1, deal_id: 1, deleted_at: 1, created_at: -1, _id: -1 });

const parentField = (parent: NoteParent) => (parent.kind === 'contact' ? 'contact_id' : 'deal_id');

export type NoteRepository = ReturnType<typeof createNoteRepository>;

export function createNoteRepository(storage: Storage) {
  const notes = new RecordStore<NoteRecord>(storage, { model: 'Note', schema: noteSchema, what: 'note', outbox: true });
  /** Every query names the tenant, the parent and the soft-delete flag: a note of another parent is not found. */
  const live = (orgId: string, parent: NoteParent) => ({ org_id: orgId, [parentField(parent)]: parent.id, deleted_at: null });

  return {
    collection: notes.collection,

    /** In `session` when the note's contact counts it in the same transaction. */
    insert: (record: NoteRecord, events: OutboxEntry[], session?: ClientSession) => notes.insert(record, { events, session }),

    getById: (orgId: string, parent: NoteParent, id: string) => notes.findOne({ _id: id, ...live(orgId, parent) }),

    countByParent: (orgId: string, parent: NoteParent) => notes.count(live(orgId, parent)),

    list: (orgId: string, parent: NoteParent, page: PageRequest) =>
      notes.listPage([live(orgId, parent)], { field: 'created_at', order: 'desc', type: 'date' }, page),

    /** A merge: the notes of the contacts `from` now belong to the contact `to` (idempotent). */
    moveToContact: (orgId: string, from: string[], to: string, session?: ClientSession) =>
      notes.updateMany({ org_id: orgId, contact_id: { $in: from } }, { contact_id: to }, { session }),

    update: (
      orgId: string,
      parent: NoteParent,
      id: string,
      set: Partial<Pick<NoteRecord, 'content' | 'color' | 'category' | 'updated_at' | 'deleted_at'>>,
      session?: ClientSession,
    ) => notes.update({ _id: id, ...live(orgId, parent) }, set, { session }),
  };
}
