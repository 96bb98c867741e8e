import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { removeContactTag } from '../domain/contacts';
import { requireId } from './request';

export const removeContactTagHandler: RpcHandler<ContactServiceServer, 'removeContactTag', CrmDeps> = async (deps, request) => {
  await removeContactTag(deps, request.org_id, requireId('contact', request.id), request.tags[0] ?? '');
  return {};
};
