import type { BroadcastServiceServer } from '@crm/proto/gen/broadcasts/v1/broadcasts';
import type { AsyncService } from '@crm/shared';
import { cancelBroadcast, launchBroadcast, pauseBroadcast, resumeBroadcast, scheduleBroadcast } from '../broadcasts/actions';
import {
  createBroadcast,
  deleteBroadcast,
  estimateAudience,
  getBroadcast,
  listBroadcasts,
  listRecipients,
  updateBroadcast,
} from '../broadcasts/crud';
import type { MessagingDeps } from '../domain/deps';
import { pageInfo, pageOf, requireId } from './request';

/** gRPC BroadcastService: maps messages to domain calls and back; the rules live in broadcasts/. */
export function broadcastHandlers(deps: MessagingDeps): AsyncService<BroadcastServiceServer> {
  const org = (request: { org_id: string }) => requireId('organization', request.org_id);
  const id = (request: { id: string }) => requireId('broadcast', request.id);
  return {
    listBroadcasts: async (request) => {
      const result = await listBroadcasts(deps, org(request), { ...pageOf(request.page), ...request.filter });
      return { items: result.items, page: pageInfo(result) };
    },
    createBroadcast: async (request) => createBroadcast(deps, org(request), request.plan, request.body ?? {}),
    estimateAudience: async (request) => estimateAudience(deps, org(request), request.body ?? {}),
    getBroadcast: async (request) => getBroadcast(deps, org(request), id(request)),
    updateBroadcast: async (request) => updateBroadcast(deps, org(request), request.plan, id(request), request.body ?? {}),
    deleteBroadcast: async (request) => {
      await deleteBroadcast(deps, org(request), id(request));
      return {};
    },
    launchBroadcast: async (request) => launchBroadcast(deps, org(request), id(request), request.body ?? {}),
    scheduleBroadcast: async (request) => scheduleBroadcast(deps, org(request), id(request), request.body ?? {}),
    pauseBroadcast: async (request) => pauseBroadcast(deps, org(request), id(request)),
    resumeBroadcast: async (request) => resumeBroadcast(deps, org(request), id(request), request.body ?? {}),
    cancelBroadcast: async (request) => cancelBroadcast(deps, org(request), id(request)),
    listRecipients: async (request) => {
      const result = await listRecipients(deps, org(request), requireId('broadcast', request.broadcast_id), {
        ...pageOf(request.page),
        status: request.status,
      });
      return { items: result.items, page: pageInfo(result) };
    },
  };
}
