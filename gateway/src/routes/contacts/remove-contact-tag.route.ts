import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';
import { defineRoute } from '../../http/route';

export const removeContactTagRoute = defineRoute({
  operationId: 'removeContactTag',
  method: 'DELETE',
  path: '/v1/contacts/{id}/tags/{tag}',
  tag: 'Contacts',
  summary: 'Remove a tag from a contact',
  description: '{tag} is the URL-encoded exact tag. 204 also when the tag was absent; emits contact.tag.removed only if it was present.',
  scope: 'write:contacts',
  params: z.object({ id: idOf('contact'), tag: z.string().min(1).max(50) }),
  success: { status: 204, kind: 'none' },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) =>
    clients.contacts.removeContactTag({ org_id: principal.orgId, id: params.id, tags: [params.tag] }),
});
