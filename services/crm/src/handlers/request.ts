import type { NoteParent as NoteParentMessage } from '@crm/proto/gen/crm/v1/notes';
import { AppError, requireId } from '@crm/shared';
import type { NoteParent } from '../domain/notes';

export { oneOf, orderOf, pageInfo, pageOf, requireId, sortedPageOf } from '@crm/shared';

/** A note request's parent: exactly one, with a well-formed id of its kind. */
export function parentOf(parent: NoteParentMessage | undefined): NoteParent {
  if (parent?.contact_id && !parent.deal_id) return { kind: 'contact', id: requireId('contact', parent.contact_id) };
  if (parent?.deal_id && !parent.contact_id) return { kind: 'deal', id: requireId('deal', parent.deal_id) };
  throw new AppError('VALIDATION_ERROR', 'A note request names exactly one parent: a contact or a deal.');
}
