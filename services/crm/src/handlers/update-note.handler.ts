import type { NoteServiceServer } from '@crm/proto/gen/crm/v1/notes';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateNote } from '../domain/notes';
import { parentOf, requireId } from './request';

export const updateNoteHandler: RpcHandler<NoteServiceServer, 'updateNote', CrmDeps> = async (deps, request) =>
  updateNote(deps, request.org_id, parentOf(request.parent), requireId('note', request.id), request.body ?? {});
