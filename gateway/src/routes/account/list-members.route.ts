import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Member } from '../../schemas/account.schemas';
import { pageQuery } from '../../schemas/registry';

export const listMembersRoute = defineRoute({
  operationId: 'listMembers',
  method: 'GET',
  path: '/v1/members',
  tag: 'Account',
  summary: 'List active members',
  scope: 'read:members',
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: Member },
  errors: ['INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ principal, clients, page }) => clients.accounts.listMembers({ org_id: principal.orgId, page }),
});
