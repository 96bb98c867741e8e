import type { NoteServiceServer } from '@crm/proto/gen/crm/v1/notes';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { deleteNote } from '../domain/notes';
import { parentOf, requireId } from './request';

export const deleteNoteHandler: RpcHandler<NoteServiceServer, 'deleteNote', CrmDeps> = async (deps, request) => {
  await deleteNote(deps, request.org_id, parentOf(request.parent), requireId('note', request.id));
  return {};
};
