import { addContactTagsBody } from '@crm/shared/schemas';
import { defineRoute } from '../../http/route';
import { Contact } from '../../schemas/contact.schemas';
import { contactIdParams } from './params';

export const addContactTagsRoute = defineRoute({
  operationId: 'addContactTags',
  method: 'POST',
  path: '/v1/contacts/{id}/tags',
  tag: 'Contacts',
  summary: 'Add tags to a contact',
  description: 'Adds 1–50 tags and keeps the existing ones. Emits contact.tag.added for each newly added tag.',
  scope: 'write:contacts',
  params: contactIdParams,
  body: addContactTagsBody,
  success: { status: 200, kind: 'one', schema: Contact },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_JSON', 'UNKNOWN_FIELDS', 'VALIDATION_ERROR'],
  handle: ({ params, body, principal, clients }) =>
    clients.contacts.addContactTags({ org_id: principal.orgId, id: params.id, tags: body.tags }),
});
