import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from '@crm/shared/schemas';
import { z } from 'zod';
import { filterOf } from '../../http/list-query';
import { defineRoute } from '../../http/route';
import { Template } from '../../schemas/messaging.schemas';
import { pageQuery } from '../../schemas/registry';
import { chatInstanceIdParams } from './params';

const query = z.object({
  ...pageQuery,
  status: z.enum(TEMPLATE_STATUSES).optional(),
  language: z.string().min(2).max(15).optional(),
  category: z.enum(TEMPLATE_CATEGORIES).optional(),
  name: z.string().min(1).max(512).optional(),
});

export const listTemplatesRoute = defineRoute({
  operationId: 'listTemplates',
  method: 'GET',
  path: '/v1/chatapp-instances/{id}/templates',
  tag: 'Chat instances',
  summary: "List a number's templates",
  description: 'Always empty for a qrcode number. meta.total counts the templates of the number.',
  scope: 'read:chatapp_instances',
  params: chatInstanceIdParams,
  query,
  success: { status: 200, kind: 'list', schema: Template },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, query: q, principal, clients, page }) =>
    clients.messaging.listTemplates({
      org_id: principal.orgId,
      instance_id: params.id,
      page,
      filter: filterOf(q),
    }),
});
