import type { NoteParent as NoteParentMessage, NoteServiceServer } from '@crm/proto/gen/crm/v1/notes';
import { AppError, type AsyncService } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createNote, deleteNote, listNotes, updateNote } from '../domain/notes';
import type { NoteParent } from '../repository/note.repository';
import { pageOf, pageInfo, requireId } from './request';

/** gRPC NoteService: one service for contact and deal notes; the parent decides which. */
export function noteHandlers(deps: CrmDeps): AsyncService<NoteServiceServer> {
  return {
    listNotes: async (request) => {
      const { limit, after } = pageOf(request.page);
      const result = await listNotes(deps, requireId('organization', request.org_id), parentOf(request.parent), limit, after);
      return { items: result.items, page: pageInfo(result) };
    },
    createNote: async (request) => createNote(deps, request.org_id, parentOf(request.parent), request.body ?? {}),
    updateNote: async (request) =>
      updateNote(deps, request.org_id, parentOf(request.parent), requireId('note', request.id), request.body ?? {}),
    deleteNote: async (request) => {
      await deleteNote(deps, request.org_id, parentOf(request.parent), requireId('note', request.id));
      return {};
    },
  };
}

/** Exactly one parent, with a well-formed id of its kind. */
function parentOf(parent: NoteParentMessage | undefined): NoteParent {
  if (parent?.contact_id && !parent.deal_id) return { kind: 'contact', id: requireId('contact', parent.contact_id) };
  if (parent?.deal_id && !parent.contact_id) return { kind: 'deal', id: requireId('deal', parent.deal_id) };
  throw new AppError('VALIDATION_ERROR', 'A note request names exactly one parent: a contact or a deal.');
}
