import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { updateContact } from '../domain/contacts';
import { requireId } from './request';

export const updateContactHandler: RpcHandler<ContactServiceServer, 'updateContact', CrmDeps> = async (deps, request) =>
  updateContact(deps, request.org_id, requireId('contact', request.id), request.body ?? {});
