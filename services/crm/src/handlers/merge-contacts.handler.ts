import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import { mergeContacts } from '../domain/contact-merge';
import type { CrmDeps } from '../domain/deps';
import { requireId } from './request';

export const mergeContactsHandler: RpcHandler<ContactServiceServer, 'mergeContacts', CrmDeps> = async (deps, request) =>
  mergeContacts(deps, request.org_id, requireId('contact', request.id), request.body ?? {});
