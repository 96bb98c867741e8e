import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Note } from '../../schemas/note.schemas';
import { pageQuery } from '../../schemas/registry';
import { contactNotesParams } from './params';

export const listContactNotesRoute = defineRoute({
  operationId: 'listContactNotes',
  method: 'GET',
  path: '/v1/contacts/{id}/notes',
  tag: 'Contacts',
  summary: "List a contact's notes",
  description: 'Newest first. meta.total counts the notes of the contact.',
  scope: 'read:contacts',
  params: contactNotesParams,
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: Note },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, principal, clients, page }) =>
    clients.notes.listNotes({
      org_id: principal.orgId,
      parent: { contact_id: params.id },
      page,
    }),
});
