import type { AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import type { AsyncService } from '@crm/shared';
import { authenticate, getMe, listCustomFields, listMembers, listTags } from '../domain/accounts';
import type { CrmDeps } from '../domain/deps';
import { CUSTOM_FIELD_ENTITIES, type CustomFieldEntity } from '../repository/custom-field.repository';
import { pageInfo, pageOf } from './request';

export function accountHandlers(deps: CrmDeps): AsyncService<AccountServiceServer> {
  return {
    authenticate: async (request) => authenticate(deps, request.key_hash),
    getMe: async (request) => getMe(deps, request.org_id, request.key_id),
    listMembers: async (request) => {
      const { limit, after } = pageOf(request.page);
      const result = await listMembers(deps, request.org_id, limit, after);
      return { items: result.items, page: pageInfo(result) };
    },
    listCustomFields: async (request) => {
      const { limit, after } = pageOf(request.page);
      const entity = CUSTOM_FIELD_ENTITIES.find((candidate): candidate is CustomFieldEntity => candidate === request.entity);
      const result = await listCustomFields(deps, request.org_id, entity, limit, after);
      return {
        items: result.items.map((item) => ({ ...item, options: item.options, default_value: item.default_value })),
        page: pageInfo(result),
      };
    },
    listTags: async (request) => {
      const { limit, after } = pageOf(request.page);
      const result = await listTags(deps, request.org_id, limit, after);
      return { items: result.items, page: pageInfo(result) };
    },
  };
}
