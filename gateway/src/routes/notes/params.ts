import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const contactNotesParams = z.object({ id: idOf('contact') });
export const contactNoteParams = z.object({ id: idOf('contact'), noteId: idOf('note') });
export const dealNotesParams = z.object({ id: idOf('deal') });
export const dealNoteParams = z.object({ id: idOf('deal'), noteId: idOf('note') });
