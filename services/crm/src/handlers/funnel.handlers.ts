import type { FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import type { AsyncService } from '@crm/shared';
import type { CrmDeps } from '../domain/deps';
import { createFunnel, getFunnel, listFunnels, updateFunnel } from '../domain/funnels';
import { createStage, deleteStage, updateStage } from '../domain/stages';
import { pageInfo, pageOf, requireId } from './request';

/** gRPC FunnelService: maps messages to domain calls and back; the rules live in domain/funnels.ts and stages.ts. */
export function funnelHandlers(deps: CrmDeps): AsyncService<FunnelServiceServer> {
  return {
    listFunnels: async (request) => {
      const { limit, after } = pageOf(request.page);
      const result = await listFunnels(deps, requireId('organization', request.org_id), {
        includeArchived: request.include_archived,
        limit,
        after,
      });
      return { items: result.items, page: pageInfo(result) };
    },
    getFunnel: async (request) => getFunnel(deps, request.org_id, requireId('funnel', request.id)),
    createFunnel: async (request) => createFunnel(deps, request.org_id, request.body ?? {}),
    updateFunnel: async (request) => updateFunnel(deps, request.org_id, requireId('funnel', request.id), request.body ?? {}),
    createStage: async (request) => createStage(deps, request.org_id, requireId('funnel', request.funnel_id), request.body ?? {}),
    updateStage: async (request) =>
      updateStage(deps, request.org_id, requireId('funnel', request.funnel_id), requireId('stage', request.id), request.body ?? {}),
    deleteStage: async (request) => {
      await deleteStage(deps, request.org_id, requireId('funnel', request.funnel_id), requireId('stage', request.id));
      return {};
    },
  };
}
