import type { Note } from '@crm/proto/gen/crm/v1/notes';
import { iso } from '@crm/shared';
import type { NoteRecord } from '../repository/note.repository';

/** A note as the API shows it; the same object travels in contact.note.added and deal.note.added. */
export function viewNote(record: NoteRecord): Note {
  return {
    id: record.id,
    content: record.content,
    color: record.color,
    category: record.category,
    created_at: iso(record.created_at),
    updated_at: iso(record.updated_at),
  };
}
