import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { getContactFields } from '../domain/contact-fields';
import { requireId } from './request';

export const getContactFieldsHandler: RpcHandler<ContactServiceServer, 'getContactFields', CrmDeps> = async (deps, request) =>
  getContactFields(deps, request.org_id, requireId('contact', request.id));
