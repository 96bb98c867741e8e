import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import { upsertContacts } from '../domain/contact-upsert';
import type { CrmDeps } from '../domain/deps';

export const batchUpsertContactsHandler: RpcHandler<ContactServiceServer, 'batchUpsertContacts', CrmDeps> = async (deps, request) => ({
  items: await upsertContacts(deps, request.org_id, request.items),
});
