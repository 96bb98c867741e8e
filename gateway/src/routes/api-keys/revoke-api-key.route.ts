import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';

export const revokeApiKeyRoute = defineRoute({
  operationId: 'revokeApiKey',
  method: 'DELETE',
  path: '/v1/api-keys/{id}',
  tag: 'Account',
  summary: 'Revoke an API key',
  description:
    "The key stops authenticating within the gateways' key cache time (AUTH_CACHE_TTL_MS, 5 s by default) and the webhook subscriptions it answers to are paused (paused_reason api_key_revoked). A key may revoke itself, and only keys whose scopes it holds all of: revoking one that holds a scope the asking key lacks answers 403 INSUFFICIENT_SCOPES. A key already revoked, or of another organization, answers 404.",
  scope: 'write:api_keys',
  params: z.object({ id: idOf('apiKey') }),
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) =>
    clients.accounts.revokeApiKey({ org_id: principal.orgId, key_id: params.id, caller_scopes: principal.scopes }),
});
