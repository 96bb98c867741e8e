import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getContact } from '../domain/contacts';
import { requireId } from './request';

export const getContactHandler: RpcHandler<ContactServiceServer, 'getContact', CrmDeps> = async (deps, request) =>
  getContact(deps, request.org_id, requireId('contact', request.id));
