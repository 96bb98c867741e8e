import type { ListTemplatesRequest } from '@crm/proto/gen/messaging/v1/messaging';
import type { MessagingDeps } from '../domain/deps';
import { listTemplates } from '../domain/instances';
import { pageInfo, pageOf, requireId } from './request';

export async function listTemplatesHandler(deps: MessagingDeps, request: ListTemplatesRequest) {
  const { limit, after } = pageOf(request.page);
  const result = await listTemplates(deps, requireId('organization', request.org_id), requireId('chatInstance', request.instance_id), {
    ...request.filter,
    limit,
    after,
  });
  return { items: result.items, page: pageInfo(result) };
}
