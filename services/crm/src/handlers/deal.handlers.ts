import type { DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import type { AsyncService } from '@crm/shared';
import { DEAL_SORTS } from '@crm/shared/schemas';
import { loseDeal, moveDeal, reopenDeal, transferDeal, winDeal } from '../domain/deal-actions';
import { createDeal, deleteDeal, getDeal, listDeals, updateDeal } from '../domain/deals';
import type { CrmDeps } from '../domain/deps';
import { orderOf, pageInfo, pageOf, requireId } from './request';

/** gRPC DealService: maps messages to domain calls and back; the rules live in domain/deals.ts and deal-actions.ts. */
export function dealHandlers(deps: CrmDeps): AsyncService<DealServiceServer> {
  return {
    listDeals: async (request) => {
      const { limit, after } = pageOf(request.page);
      const orgId = requireId('organization', request.org_id);
      const result = await listDeals(deps, orgId, {
        ...request.filter,
        contact_id: request.contact_id ? requireId('contact', request.contact_id) : null,
        company_id: request.company_id ? requireId('company', request.company_id) : null,
        sort: DEAL_SORTS.find((candidate) => candidate === request.sort) ?? 'created_at',
        order: orderOf(request.order),
        limit,
        after,
      });
      return { items: result.items, page: pageInfo(result) };
    },
    getDeal: async (request) => getDeal(deps, request.org_id, requireId('deal', request.id)),
    createDeal: async (request) => createDeal(deps, request.org_id, request.body ?? {}),
    updateDeal: async (request) => updateDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {}),
    deleteDeal: async (request) => {
      await deleteDeal(deps, request.org_id, requireId('deal', request.id));
      return {};
    },
    moveDeal: async (request) => moveDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {}),
    winDeal: async (request) => winDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {}),
    loseDeal: async (request) => loseDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {}),
    reopenDeal: async (request) => reopenDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {}),
    transferDeal: async (request) => transferDeal(deps, request.org_id, requireId('deal', request.id), request.body ?? {}),
  };
}
