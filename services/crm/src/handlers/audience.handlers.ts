import type { AudienceServiceServer } from '@crm/proto/gen/crm/v1/audiences';
import type { AsyncService } from '@crm/shared';
import { streamAudience } from '../domain/audiences';
import type { CrmDeps } from '../domain/deps';

/** gRPC AudienceService: one page message per domain page; validation and the query live in domain/audiences.ts. */
export function audienceHandlers(deps: CrmDeps): AsyncService<AudienceServiceServer> {
  return {
    streamAudience: async function* (request) {
      for await (const contacts of streamAudience(deps, request)) yield { contacts };
    },
  };
}
