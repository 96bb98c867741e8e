import { type KeysetPosition, newId, newEvent, notFound } from '@crm/shared';
import { createNoteBody, parseOrThrow, updateNoteBody } from '@crm/shared/schemas';
import type { ClientSession } from 'mongoose';
import type { NoteParent, NoteRecord } from '../repository/note.repository';

export type { NoteParent };
import type { CrmDeps } from './deps';
import { viewNote } from './note.view';

/**
 * Notes on contacts and deals. The parent must be live in the organization (a deleted contact has no notes to
 * show), and a note is only reachable through its own parent: the note of another contact is NOT_FOUND.
 */
export async function listNotes(deps: CrmDeps, orgId: string, parent: NoteParent, limit: number, after: KeysetPosition | undefined) {
  await requireParent(deps, orgId, parent);
  // meta.total of a sub-collection counts the parent's records (catalogue §1).
  const [page, total] = await Promise.all([deps.notes.list(orgId, parent, { limit, after }), deps.notes.countByParent(orgId, parent)]);
  return { items: page.items.map(viewNote), hasMore: page.hasMore, next: page.next, total };
}

export async function createNote(deps: CrmDeps, orgId: string, parent: NoteParent, rawBody: unknown) {
  const body = parseOrThrow(createNoteBody, rawBody);
  // A contact's existence is checked by the write of its count, below.
  if (parent.kind === 'deal') await requireParent(deps, orgId, parent);
  const now = deps.now();
  const record: NoteRecord = {
    id: newId('note'),
    org_id: orgId,
    ...(parent.kind === 'contact' ? { contact_id: parent.id } : { deal_id: parent.id }),
    content: body.content,
    color: body.color,
    category: body.category,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  const view = viewNote(record);
  // The event rides in the note's own document: the note and its event are written together or not at all.
  if (parent.kind === 'deal') {
    await deps.notes.insert(record, [newEvent(orgId, 'deal.note.added', { note: view, deal_id: parent.id }, now)]);
    return view;
  }
  // A contact's note moves the contact's stored notes_count in the same transaction (a contact that is not
  // current answers NOT_FOUND, and the transaction writes nothing).
  const event = newEvent(orgId, 'contact.note.added', { note: view, contact_id: parent.id }, now);
  await deps.transaction(async (session) => {
    if (!(await deps.contacts.adjustCurrent(orgId, parent.id, { notes_count: 1 }, session))) throw notFound('contact');
    await deps.notes.insert(record, [event], session);
  });
  return view;
}

/** Note edits emit no event (catalogue §6). */
export async function updateNote(deps: CrmDeps, orgId: string, parent: NoteParent, id: string, rawBody: unknown) {
  const body = parseOrThrow(updateNoteBody, rawBody);
  await requireParent(deps, orgId, parent);
  const set = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  const updated = await deps.notes.update(orgId, parent, id, { ...set, updated_at: deps.now() });
  if (!updated) throw notFound('note');
  return viewNote(updated);
}

/** Soft delete: a note deleted right after its creation keeps its document until the relay published the event. */
export async function deleteNote(deps: CrmDeps, orgId: string, parent: NoteParent, id: string): Promise<void> {
  const at = deps.now();
  const remove = (session?: ClientSession) => deps.notes.update(orgId, parent, id, { deleted_at: at, updated_at: at }, session);
  if (parent.kind === 'deal') {
    await requireParent(deps, orgId, parent);
    if (!(await remove())) throw notFound('note');
    return;
  }
  // A contact's note: its stored notes_count moves in the same transaction, whose write checks the contact is
  // current; a NOT_FOUND aborts it whole.
  await deps.transaction(async (session) => {
    if (!(await deps.contacts.adjustCurrent(orgId, parent.id, { notes_count: -1 }, session))) throw notFound('contact');
    if (!(await remove(session))) throw notFound('note');
  });
}

async function requireParent(deps: CrmDeps, orgId: string, parent: NoteParent): Promise<void> {
  const exists =
    parent.kind === 'contact' ? await deps.refs.exists('contacts', orgId, parent.id) : await deps.refs.exists('deals', orgId, parent.id);
  if (!exists) throw notFound(parent.kind);
}
