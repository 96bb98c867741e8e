import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { RpcHandler } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { CUSTOM_FIELD_ENTITIES, listCustomFields } from '../domain/accounts';
import { oneOf, pageInfo, pageOf } from './request';

export const listCustomFieldsHandler: RpcHandler<AccountServiceServer, 'listCustomFields', CrmDeps> = async (deps, request) => {
  const { limit, after } = pageOf(request.page);
  const entity = oneOf(CUSTOM_FIELD_ENTITIES, request.entity) ?? undefined;
  const result = await listCustomFields(deps, request.org_id, entity, limit, after);
  return {
    items: result.items.map((item) => ({ ...item, options: item.options, default_value: item.default_value })),
    page: pageInfo(result),
  };
};
