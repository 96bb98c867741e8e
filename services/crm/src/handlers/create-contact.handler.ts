import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createContact } from '../domain/contacts';

export const createContactHandler: RpcHandler<ContactServiceServer, 'createContact', CrmDeps> = async (deps, request) =>
  createContact(deps, request.org_id, request.body ?? {});
