import type { NoteServiceServer } from '@crm/proto/gen/crm/v1/notes';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createNote } from '../domain/notes';
import { parentOf } from './request';

export const createNoteHandler: RpcHandler<NoteServiceServer, 'createNote', CrmDeps> = async (deps, request) =>
  createNote(deps, request.org_id, parentOf(request.parent), request.body ?? {});
