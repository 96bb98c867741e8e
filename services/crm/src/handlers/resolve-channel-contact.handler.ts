import type { ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { resolveChannelContact } from '../domain/channel-contacts';
import { requireId } from './request';

export const resolveChannelContactHandler: RpcHandler<ContactServiceServer, 'resolveChannelContact', CrmDeps> = async (deps, request) =>
  resolveChannelContact(deps, requireId('organization', request.org_id), {
    channel: request.channel,
    identifier: request.identifier,
    name: request.name,
    phone: request.phone,
  });
