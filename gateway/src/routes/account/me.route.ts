import { defineRoute } from '../../http/route';
import { Me } from '../../schemas/account.schemas';

export const getMeRoute = defineRoute({
  operationId: 'getMe',
  method: 'GET',
  path: '/v1/me',
  tag: 'Account',
  summary: "The key's organization and scopes",
  scope: null,
  success: { status: 200, kind: 'one', schema: Me },
  handle: ({ principal, clients }) => clients.accounts.getMe({ org_id: principal.orgId, key_id: principal.keyId }),
});
