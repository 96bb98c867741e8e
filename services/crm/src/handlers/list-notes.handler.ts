import type { NoteServiceServer } from '@crm/proto/gen/crm/v1/notes';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { listNotes } from '../domain/notes';
import { pageOf, pageInfo, parentOf, requireId } from './request';

export const listNotesHandler: RpcHandler<NoteServiceServer, 'listNotes', CrmDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const result = await listNotes(deps, requireId('organization', request.org_id), parentOf(request.parent), limit, after);
  return { items: result.items, page: pageInfo(result) };
};
