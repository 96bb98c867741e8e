import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { addContactTags } from '../domain/contacts';
import { requireId } from './request';

export const addContactTagsHandler: RpcHandler<ContactServiceServer, 'addContactTags', CrmDeps> = async (deps, request) =>
  addContactTags(deps, request.org_id, requireId('contact', request.id), { tags: request.tags });
