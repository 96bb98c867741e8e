import { defineRoute } from '../../http/route';
import { OptOut } from '../../schemas/opt-out.schemas';
import { contactIdParams } from './params';

export const optOutContactRoute = defineRoute({
  operationId: 'optOutContact',
  method: 'POST',
  path: '/v1/contacts/{id}/opt-out',
  tag: 'Contacts',
  summary: 'Opt a contact out of marketing',
  description:
    'Records that the contact asked for no more marketing messages (by a form, a call…), as a STOP keyword does: official ' +
    'broadcasts with a marketing template leave it out (exclusion_reason marketing_opt_out). Emits contact.opted_out ' +
    '(source api) the first time; repeating it answers the standing opt-out and emits nothing. Only the contact opts back ' +
    'in, by writing START.',
  scope: 'write:contacts',
  params: contactIdParams,
  success: { status: 200, kind: 'one', schema: OptOut },
  errors: ['INVALID_ID', 'NOT_FOUND'],
  handle: ({ params, principal, clients }) => clients.messaging.optOutContact({ org_id: principal.orgId, id: params.id }),
});
