import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Tag } from '../../schemas/account.schemas';
import { pageQuery } from '../../schemas/registry';

export const listTagsRoute = defineRoute({
  operationId: 'listTags',
  method: 'GET',
  path: '/v1/tags',
  tag: 'Account',
  summary: 'List tags with their use counts',
  description: 'Counts uses across live contacts, companies and deals; ordered by count descending, then name.',
  scope: 'read:tags',
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: Tag },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ principal, clients, page }) => clients.accounts.listTags({ org_id: principal.orgId, page }),
});
