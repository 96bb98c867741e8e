import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { ApiKey } from '../../schemas/account.schemas';
import { pageQuery } from '../../schemas/registry';

export const listApiKeysRoute = defineRoute({
  operationId: 'listApiKeys',
  method: 'GET',
  path: '/v1/api-keys',
  tag: 'Account',
  summary: "List the organization's API keys",
  description:
    'Newest first, revoked and expired keys included (status). Shows what identifies each key and what it may do: neither a key nor its hash is ever returned.',
  scope: 'read:api_keys',
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: ApiKey },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ principal, clients, page }) => clients.accounts.listApiKeys({ org_id: principal.orgId, page }),
});
