import { idOf } from '@crm/shared/schemas';
import { z } from 'zod';

export const dealIdParams = z.object({ id: idOf('deal') });
