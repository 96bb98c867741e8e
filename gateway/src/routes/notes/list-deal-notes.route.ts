import { z } from 'zod';
import { defineRoute } from '../../http/route';
import { Note } from '../../schemas/note.schemas';
import { pageQuery } from '../../schemas/registry';
import { dealNotesParams } from './params';

export const listDealNotesRoute = defineRoute({
  operationId: 'listDealNotes',
  method: 'GET',
  path: '/v1/deals/{id}/notes',
  tag: 'Deals',
  summary: "List a deal's notes",
  description: 'Newest first. meta.total counts the notes of the deal.',
  scope: 'read:deals',
  params: dealNotesParams,
  query: z.object(pageQuery),
  success: { status: 200, kind: 'list', schema: Note },
  errors: ['INVALID_ID', 'NOT_FOUND', 'INVALID_CURSOR', 'VALIDATION_ERROR'],
  handle: ({ params, principal, clients, page }) =>
    clients.notes.listNotes({
      org_id: principal.orgId,
      parent: { deal_id: params.id },
      page,
    }),
});
